#pragma once
/// \file
/// The autocast layer of the dispatcher: looks the op up in the thread's policy table and casts
/// the eligible tensor arguments (or sets the op's dtype argument) before the op runs.
///
/// Eligible (PyTorch's is_eligible): defined, on the autocast device type, floating point, not f64.
/// dispatch/dispatch.h calls decide() once per op, then cast_argument() on each tensor argument. Both
/// return what they did (a Decision, a CachedCast); the words for it are built by
/// explain/explain.h, only when a trace or TINYAMP_DEBUG reads them.

#include <optional>
#include <vector>

#include "tinyamp/amp/autocast_state.h"
#include "tinyamp/amp/cast_cache.h"
#include "tinyamp/amp/cast_policy.h"
#include "tinyamp/tensor/tensor.h"

namespace tinyamp::amp {

/// What the autocast layer decided for one op call: the rule that applies and the dtype that
/// eligible tensor arguments are cast to. A default Decision changes nothing (autocast off).
struct Decision {
    bool autocast_on = false;           ///< autocast is enabled for the op's device type
    DeviceType device_type = DeviceType::cpu;  ///< the device type of the first defined tensor argument
    std::optional<CastPolicy> policy;   ///< nullopt: the op is not listed
    DType target = DType::f32;          ///< lower_precision_fp / fp32 / promote: what eligible inputs become
    bool set_opt_dtype = false;         ///< fp32_set_opt_dtype with an eligible first input
    const char* rule = "";              ///< "lower_precision_fp", ..., "not listed", or "" (autocast off)
};

/// Whether autocast may cast `t` (PyTorch's is_eligible): defined, on `device_type`, floating
/// point and not f64. Integer, bool and f64 tensors always keep their dtype.
bool is_eligible(const Tensor& t, DeviceType device_type);
/// Decides what autocast does for the op named `op`, given its tensor arguments in order. The device type is the first
/// defined tensor's; when autocast is off for it, the Decision changes nothing. Otherwise the
/// op is looked up in the thread's table: lower_precision_fp targets the autocast dtype, fp32
/// targets f32, promote the widest eligible input (f32 if any is f32), fp32_set_opt_dtype asks
/// for dtype f32 when the first tensor is eligible. Throws Error(state) with PyTorch's message
/// for a banned op, and Error(dtype) for an f16 input in a bf16 region (or the reverse) under
/// promote.
Decision decide(const char* op, const std::vector<Tensor>& tensors);
/// One tensor argument, cast as the decision says: an eligible tensor not already in the
/// target dtype is cast under lower_precision_fp (through the cast cache, cached_cast), fp32 and
/// promote, and the cast comes back with what the cache did; nullopt means "left as it is". Each
/// cast is a differentiable `to` op, run with the autocast layer excluded (as PyTorch's
/// cached_cast): a cast never goes through the autocast decision again. `cast` is the `to` op,
/// which the dispatcher hands down (cast_cache.h, CastFunction).
std::optional<CachedCast> cast_argument(const Tensor& t, const Decision& decision, CastFunction cast);
/// An op's optional dtype argument: f32 when the decision says fp32_set_opt_dtype and the
/// caller gave none; a dtype the caller gave is kept.
inline std::optional<DType> dtype_argument(const std::optional<DType>& dtype, const Decision& decision)
{
    return decision.set_opt_dtype && !dtype ? std::optional<DType>(DType::f32) : dtype;
}

}  // namespace tinyamp::amp
