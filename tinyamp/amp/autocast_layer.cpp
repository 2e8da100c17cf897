#include "tinyamp/amp/autocast_layer.h"

#include <string_view>

#include "tinyamp/trace/recorder.h"

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

}  // namespace

bool is_eligible(const Tensor& t, DeviceType device_type)
{
    return t.defined() && t.device().type() == device_type && is_floating_point(t.dtype()) && t.dtype() != DType::f64;
}

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
    return d;
}

std::optional<CachedCast> cast_argument(const Tensor& t, const Decision& d, CastFunction cast)
{
    const bool casts = d.policy == CastPolicy::lower_precision_fp || d.policy == CastPolicy::fp32 || d.policy == CastPolicy::promote;
    if (!casts || !is_eligible(t, d.device_type) || t.dtype() == d.target) return std::nullopt;
    ExcludeAutocast exclude;    // the cast's own `to` is not an op autocast decides about
    trace::NestedScope nested;  // nor one the trace shows on its own: it is this cast's event
    if (d.policy == CastPolicy::lower_precision_fp) return cached_cast(t, d.target, d.device_type, cast);
    return CachedCast{cast(t, d.target), CacheOutcome::not_cacheable, CacheReason::not_lower_precision};
}

}  // namespace tinyamp::amp
