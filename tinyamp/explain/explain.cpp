#include "tinyamp/explain/explain.h"

#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string_view>

namespace tinyamp::trace {
namespace {

std::string arrow(DType from, DType to) { return std::string(dtype_name(from)) + "\u2192" + dtype_name(to); }

std::string rule_on_device(const char* op, const amp::Decision& d)
{
    return std::string(op) + " is " + d.rule + " on " + device_type_name(d.device_type) + " \u2192 ";
}

CacheEvent cache_event(amp::CacheOutcome outcome)
{
    switch (outcome) {
    case amp::CacheOutcome::hit: return CacheEvent::hit;
    case amp::CacheOutcome::stored: return CacheEvent::stored;
    case amp::CacheOutcome::not_cacheable: break;
    }
    return CacheEvent::none;
}

// The module an event ran in, and (when `made` has a graph node) the same module noted for that
// node's backward event.
void set_module(Event& e, const Tensor& made)
{
    e.module = current_module_path();
    e.module_types = current_module_types();
    if (made.defined() && made.grad_fn()) current()->remember_module(made.grad_fn().get(), e.module, e.module_types);
}

}  // namespace

bool debug_enabled()
{
    static const bool enabled = [] {
        const char* v = std::getenv("TINYAMP_DEBUG");
        return v && std::string_view(v) == "1";
    }();
    return enabled;
}

bool explaining() { return debug_enabled() || (current() && at_top_level()); }

void debug_log(const std::string& line)
{
    if (debug_enabled()) std::cerr << "[tinyamp autocast] " << line << '\n';
}

std::string explain_decision(const char* op, const amp::Decision& d)
{
    using amp::CastPolicy;
    if (!d.autocast_on) return std::string(op) + " ran with autocast off, in its input dtypes";
    if (!d.policy) return std::string(op) + " is not listed on " + device_type_name(d.device_type) + " \u2192 runs in its input dtypes";
    const std::string why = rule_on_device(op, d);
    switch (*d.policy) {
    case CastPolicy::lower_precision_fp:
    case CastPolicy::fp32: return why + "runs in " + dtype_name(d.target);
    case CastPolicy::fp32_set_opt_dtype:
        return why + (d.set_opt_dtype ? "inputs kept, result in f32 (dtype=f32 unless given)" : "first input not eligible: unchanged");
    case CastPolicy::promote: return why + "runs in the widest input dtype, " + dtype_name(d.target);
    case CastPolicy::banned: break;
    }
    return why;
}

std::string explain_cache_reason(amp::CacheReason reason, const Tensor& source)
{
    const std::string who = source.name().empty() ? "the tensor" : source.name();
    switch (reason) {
    case amp::CacheReason::f32_leaf_requiring_grad: return who + " is an f32 leaf that requires grad";
    case amp::CacheReason::not_lower_precision: return "only lower-precision casts are cached";
    case amp::CacheReason::not_autocast_dtype: return "only casts to the autocast dtype are cached";
    case amp::CacheReason::not_f32: return who + " is not f32";
    case amp::CacheReason::no_grad_required: return who + " does not require grad (an activation, not a weight)";
    case amp::CacheReason::not_leaf: return who + " is not a leaf (it was computed)";
    case amp::CacheReason::is_view: return who + " is a view";
    case amp::CacheReason::cache_disabled: return "the cache is disabled in this region";
    }
    return "";
}

void log_decision(const char* op, const amp::Decision& decision)
{
    if (decision.policy) debug_log(explain_decision(op, decision));
}

void record_cast(const char* op, const amp::Decision& d, const Tensor& source, const amp::CachedCast& cast)
{
    std::string cache_note;
    switch (cast.cache) {
    case amp::CacheOutcome::stored: cache_note = "cache: stored, " + explain_cache_reason(cast.reason, source); break;
    case amp::CacheOutcome::hit: cache_note = "cache: hit, cast once per autocast region"; break;
    case amp::CacheOutcome::not_cacheable: cache_note = "not cached: " + explain_cache_reason(cast.reason, source); break;
    }
    const std::string who = source.name().empty() ? "input" : source.name();
    const std::string why = rule_on_device(op, d) + "cast " + who + " " + arrow(source.dtype(), d.target) + " (" + cache_note + ")";
    debug_log(why);
    if (!current() || !at_top_level()) return;
    Event e;
    e.op = "to";
    e.is_cast = true;
    e.inputs = {describe(source, false)};
    e.outputs = {describe(cast.tensor, true)};
    e.device_type = device_type_name(d.device_type);
    e.policy = d.rule;
    e.why = why;
    e.cache = cache_event(cast.cache);
    set_module(e, cast.tensor);
    current()->add(std::move(e));
}

void record_forward(const char* op, const std::vector<Tensor>& inputs, const Tensor& output, const amp::Decision& decision)
{
    Event e;
    e.op = op;
    e.phase = Phase::forward;
    for (const Tensor& t : inputs)
        if (t.defined()) e.inputs.push_back(describe(t, false));
    e.outputs.push_back(describe(output, true));
    e.device_type = device_type_name(output.device().type());
    e.policy = decision.rule;
    e.why = explain_decision(op, decision);
    set_module(e, output);
    current()->add(std::move(e));
}

void BackwardTracer::seed(Node* node, const Tensor& grad)
{
    TensorInfo info = describe(grad, false);
    if (info.name.empty()) info.name = "gradient seed";
    received_[node].push_back(std::move(info));
}

void BackwardTracer::sent(Node* to, const Tensor& grad) { received_[to].push_back(describe(grad, false)); }

void BackwardTracer::ran(Node& node, const Tensor& grad_output, const std::vector<Tensor>& raw, const std::vector<Tensor>& passed)
{
    Event e;
    e.phase = Phase::backward;
    e.op = node.name();
    e.inputs = std::move(received_[&node]);
    received_.erase(&node);
    e.device_type = device_type_name(grad_output.device().type());
    std::ostringstream why;
    std::string incoming = dtype_name(grad_output.dtype());
    if (e.inputs.size() > 1) incoming.append(", the sum of ").append(std::to_string(e.inputs.size())).append(" branches");
    if (auto* accumulate = dynamic_cast<AccumulateGrad*>(&node)) {
        why << "AccumulateGrad adds the incoming gradient (" << incoming << ")";
        if (const std::shared_ptr<TensorImpl> leaf = accumulate->leaf(); leaf && leaf->grad.defined()) {
            TensorInfo grad = describe(leaf->grad, true);
            grad.name = leaf->name.empty() ? "leaf.grad" : leaf->name + ".grad";
            why << " into " << grad.name << " (" << dtype_name(grad.dtype) << ")";
            e.outputs.push_back(std::move(grad));
        }
    } else {
        why << node.name() << "'s backward: gradient of its output (" << incoming << ") \u2192 gradients of its inputs";
        for (std::size_t i = 0; i < passed.size(); ++i) {
            if (!passed[i].defined()) continue;
            e.outputs.push_back(describe(passed[i], true));
            if (raw[i].dtype() != passed[i].dtype())  // where a gradient changes dtype on its way back
                why << "; input " << i << "'s gradient cast " << dtype_name(raw[i].dtype()) << "\u2192" << dtype_name(passed[i].dtype())
                    << " to match its forward dtype";
        }
    }
    e.why = why.str();
    // The module of the forward op that made this node; a node made outside the recording (an
    // AccumulateGrad) takes the module of the first node that sent it a gradient.
    const auto* module = trace_.module_of(&node);
    if (!module)
        if (auto hint = sender_module_.find(&node); hint != sender_module_.end()) module = &hint->second;
    if (module) {
        e.module = module->first;
        e.module_types = module->second;
        for (const Edge& next : node.next_edges)
            if (next.valid()) sender_module_.try_emplace(next.node.get(), e.module, e.module_types);
    }
    sender_module_.erase(&node);
    trace_.add(std::move(e));
}

}  // namespace tinyamp::trace
