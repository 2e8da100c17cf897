#include "tinyamp/amp/autocast_layer.h"

#include <cstdlib>
#include <iostream>
#include <string_view>

#include "tinyamp/amp/cast_cache.h"
#include "tinyamp/trace/trace.h"

namespace tinyamp::amp {
namespace {

// PyTorch's prioritize(): start from the autocast dtype; f32 anywhere wins; the autocast dtype
// with itself stays; anything else (bf16 under an f16 region, say) is an error.
DType promote_target(const char* op, const std::vector<Tensor>& tensors, DeviceType device_type)
{
    const DType autocast_dtype = get_autocast_dtype(device_type);
    DType current = autocast_dtype;
    for (const Tensor& t : tensors) {
        if (!is_eligible(t, device_type)) continue;
        if (current == DType::f32 || t.dtype() == DType::f32) {
            current = DType::f32;
        } else {
            TINYAMP_CHECK(t.dtype() == autocast_dtype && current == autocast_dtype, dtype, op, " under autocast (promote) got a ",
                          dtype_name(t.dtype()), " input in a ", dtype_name(autocast_dtype),
                          " region; f16 and bf16 cannot be promoted to each other. Convert the input with .to(f32) or .to(",
                          dtype_name(autocast_dtype), ") first");
        }
    }
    return current;
}

const char* kBannedMessage =
    "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.\n"
    "Many models use a sigmoid layer right before the binary cross entropy layer.\n"
    "In this case, combine the two layers using torch.nn.functional.binary_cross_entropy_with_logits\n"
    "or torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and BCEWithLogits are\n"
    "safe to autocast.";

std::string arrow(DType from, DType to) { return std::string(dtype_name(from)) + "\u2192" + dtype_name(to); }

bool debug_enabled()
{
    static const bool enabled = [] {
        const char* v = std::getenv("TINYAMP_DEBUG");
        return v && std::string_view(v) == "1";
    }();
    return enabled;
}

// The one-line why of a decision (only built when explaining()).
std::string explain(const char* op, const Decision& d)
{
    if (!d.policy) return std::string(op) + " is not listed on " + device_type_name(d.device_type) + " \u2192 runs in its input dtypes";
    const std::string why = std::string(op) + " is " + d.rule + " on " + device_type_name(d.device_type) + " \u2192 ";
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

}  // namespace

bool is_eligible(const Tensor& t, DeviceType device_type)
{
    return t.defined() && t.device().type() == device_type && is_floating_point(t.dtype()) && t.dtype() != DType::f64;
}

void debug_log(const std::string& line)
{
    if (debug_enabled()) std::cerr << "[tinyamp autocast] " << line << '\n';
}

bool explaining() { return debug_enabled() || (trace::current() && trace::at_top_level()); }

Decision decide(const char* op, const std::vector<Tensor>& tensors)
{
    Decision d;
    const Tensor* first = nullptr;
    for (const Tensor& t : tensors)
        if (t.defined()) {
            first = &t;
            break;
        }
    if (!first) return d;
    d.device_type = first->device().type();
    if (!is_autocast_enabled(d.device_type)) return d;
    d.autocast_on = true;
    d.policy = get_autocast_table(d.device_type).lookup(op);
    d.rule = d.policy ? policy_name(*d.policy) : "not listed";
    if (d.policy) {
        switch (*d.policy) {
        case CastPolicy::lower_precision_fp: d.target = get_autocast_dtype(d.device_type); break;
        case CastPolicy::fp32: d.target = DType::f32; break;
        case CastPolicy::fp32_set_opt_dtype: d.set_opt_dtype = is_eligible(*first, d.device_type); break;
        case CastPolicy::promote: d.target = promote_target(op, tensors, d.device_type); break;
        case CastPolicy::banned:
            // PyTorch bans one op, binary_cross_entropy, and its message is about that op; a table
            // edited to ban another op gets a message that names it.
            if (std::string_view(op) == "binary_cross_entropy") TINYAMP_FAIL(state, kBannedMessage);
            TINYAMP_FAIL(state, op, " is banned under autocast by the policy table '", get_autocast_table(d.device_type).name(),
                         "': run it outside the autocast region, or move it to another policy (PolicyTable::set)");
        }
    }
    if (explaining()) {
        d.why = explain(op, d);
        if (d.policy) debug_log(d.why);  // ops the table does not list are not autocast decisions
    }
    return d;
}

Tensor cast_argument(const Tensor& t, const Decision& d, const char* op)
{
    const bool casts = d.policy == CastPolicy::lower_precision_fp || d.policy == CastPolicy::fp32 || d.policy == CastPolicy::promote;
    if (!casts || !is_eligible(t, d.device_type) || t.dtype() == d.target) return t;

    const DType from = t.dtype();
    CachedCast result;
    {
        trace::NestedScope nested;  // the `to` op inside is this cast: not traced again on its own
        if (d.policy == CastPolicy::lower_precision_fp)
            result = cached_cast(t, d.target, d.device_type);
        else
            result = {t.to(d.target), CacheOutcome::not_cacheable, CacheReason::not_lower_precision};
    }
    if (!explaining()) return std::move(result.tensor);  // a member is not moved from implicitly

    std::string cache_note;
    switch (result.cache) {
    case CacheOutcome::stored: cache_note = "cache: stored, " + explain_cache_reason(result.reason, t); break;
    case CacheOutcome::hit: cache_note = "cache: hit, cast once per autocast region"; break;
    case CacheOutcome::not_cacheable: cache_note = "not cached: " + explain_cache_reason(result.reason, t); break;
    }
    const std::string who = t.name().empty() ? "input" : t.name();
    const std::string why = std::string(op) + " is " + d.rule + " on " + device_type_name(d.device_type) + " \u2192 cast " + who + " " +
                            arrow(from, d.target) + " (" + cache_note + ")";
    debug_log(why);
    if (trace::Trace* trace = trace::current(); trace && trace::at_top_level()) {
        trace::Event e;
        e.op = "to";
        e.is_cast = true;
        e.inputs = {trace::describe(t, false)};
        e.outputs = {trace::describe(result.tensor, true)};
        e.device_type = device_type_name(d.device_type);
        e.policy = d.rule;
        e.why = why;
        e.cache = result.cache == CacheOutcome::hit ? trace::CacheEvent::hit
                  : result.cache == CacheOutcome::stored ? trace::CacheEvent::stored
                                                          : trace::CacheEvent::none;
        trace->add(std::move(e));
    }
    return std::move(result.tensor);
}

}  // namespace tinyamp::amp
