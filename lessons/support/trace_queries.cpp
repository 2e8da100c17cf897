#include "lessons/support/trace_queries.h"

#include <stdexcept>
#include <string>

namespace tinyamp::lesson {

namespace {

template <class Keep>
Events select(const trace::Trace& trace, Keep keep)
{
    Events found;
    for (const trace::Event& e : trace.events())
        if (keep(e)) found.push_back(&e);
    return found;
}

}  // namespace

Events forward_ops(const trace::Trace& trace)
{
    return select(trace, [](const trace::Event& e) { return e.phase == trace::Phase::forward && !e.is_cast; });
}

Events casts(const trace::Trace& trace)
{
    return select(trace, [](const trace::Event& e) { return e.is_cast; });
}

Events casts_of(const trace::Trace& trace, std::string_view tensor_name)
{
    return select(trace, [&](const trace::Event& e) { return e.is_cast && !e.inputs.empty() && e.inputs[0].name == tensor_name; });
}

Events backward_events(const trace::Trace& trace)
{
    return select(trace, [](const trace::Event& e) { return e.phase == trace::Phase::backward; });
}

Events events_named(const Events& events, std::string_view op)
{
    Events found;
    for (const trace::Event* e : events)
        if (e->op == op) found.push_back(e);
    return found;
}

Events backward_casts(const trace::Trace& trace, DType from, DType to)
{
    return select(trace, [&](const trace::Event& e) {
        return e.phase == trace::Phase::backward && e.op == "to" && !e.inputs.empty() && e.inputs[0].dtype == from &&
               !e.outputs.empty() && e.outputs[0].dtype == to;
    });
}

const trace::Event* first_event(const Events& events, std::string_view op, std::size_t nth)
{
    const Events named = events_named(events, op);
    return nth < named.size() ? named[nth] : nullptr;
}

const trace::Event* last_event(const Events& events, std::string_view op)
{
    const Events named = events_named(events, op);
    return named.empty() ? nullptr : named.back();
}

std::size_t count_cache(const Events& events, trace::CacheEvent cache)
{
    std::size_t n = 0;
    for (const trace::Event* e : events) n += e->cache == cache ? 1 : 0;
    return n;
}

DType output_dtype(const trace::Event& event)
{
    if (event.outputs.empty()) throw std::invalid_argument("output_dtype: event #" + std::to_string(event.seq) + " (" + event.op + ") has no outputs");
    return event.outputs[0].dtype;
}

std::set<DType> gradient_dtypes(const trace::Trace& trace, std::string_view op)
{
    std::set<DType> dtypes;
    for (const trace::Event* e : events_named(backward_events(trace), op))
        for (const trace::TensorInfo& g : e->outputs) dtypes.insert(g.dtype);
    return dtypes;
}

}  // namespace tinyamp::lesson
