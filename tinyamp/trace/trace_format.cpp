// A trace as text, one line per event, for lessons and logs.
#include <ostream>
#include <string>

#include "tinyamp/trace/recorder.h"

namespace tinyamp::trace {

const char* phase_name(Phase phase) { return phase == Phase::forward ? "forward" : "backward"; }

const char* cache_event_name(CacheEvent cache)
{
    switch (cache) {
    case CacheEvent::none: return "none";
    case CacheEvent::stored: return "stored";
    case CacheEvent::hit: return "hit";
    }
    return "none";  // unreachable: every enumerator is handled above
}

std::string collective_how(const Collective& c)
{
    std::string text = c.reduce_op;
    if (c.root >= 0) text.append(text.empty() ? "" : " ").append("from rank ").append(std::to_string(c.root));
    return text.append(text.empty() ? "in " : " in ").append(dtype_name(c.dtype));
}

std::string collective_summary(const Collective& c)
{
    return collective_how(c)
        .append(", ")
        .append(std::to_string(c.bytes))
        .append(" bytes, rank ")
        .append(std::to_string(c.rank))
        .append(" of ")
        .append(std::to_string(c.world_size));
}

namespace {

// "w1 f32 [4, 3]", or "f32 [4, 3]" for a tensor without a name.
void print_tensors(std::ostream& out, const std::vector<TensorInfo>& tensors)
{
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        if (i > 0) out << ", ";
        if (!tensors[i].name.empty()) out << tensors[i].name << ' ';
        out << dtype_name(tensors[i].dtype) << ' ' << shape_str(tensors[i].shape);
    }
}

}  // namespace

std::ostream& operator<<(std::ostream& out, const Event& event)
{
    out << '#' << event.seq << ' ' << phase_name(event.phase) << ' ' << event.op << '(';
    print_tensors(out, event.inputs);
    out << ") -> ";
    if (event.outputs.empty()) out << "nothing";  // e.g. AccumulateGrad of a parameter that is gone
    print_tensors(out, event.outputs);
    if (event.is_cast) out << "  (autocast cast)";
    if (event.cache != CacheEvent::none) out << "  cache " << cache_event_name(event.cache);
    if (!event.policy.empty()) out << "  [" << event.policy << ']';
    if (event.collective) out << "  (collective: " << collective_summary(*event.collective) << ')';
    return out;
}

std::ostream& operator<<(std::ostream& out, const Trace& trace)
{
    for (const Event& event : trace.events()) out << event << '\n';
    return out;
}

}  // namespace tinyamp::trace
