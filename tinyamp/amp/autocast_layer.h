#pragma once
/// \file
/// The autocast layer of the dispatcher: looks the op up in the thread's policy table and casts
/// the eligible tensor arguments (or sets the op's dtype argument) before the op runs.
///
/// Eligible (PyTorch's is_eligible): defined, on the autocast device type, floating point, not f64.
/// dispatch.h calls decide() once per op, then transform_argument() on each argument.

#include <optional>
#include <string>
#include <vector>

#include "tinyamp/amp/autocast_state.h"
#include "tinyamp/amp/cast_policy.h"
#include "tinyamp/core/tensor.h"
#include "tinyamp/core/tensor_args.h"

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
    std::string why;                    ///< one line, built only when explaining() (trace or TINYAMP_DEBUG)
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
/// promote; anything else comes back as it is. Each cast is a differentiable `to`, recorded as
/// a cast event when a trace is being recorded at top level, and logged under TINYAMP_DEBUG=1.
Tensor cast_argument(const Tensor& t, const Decision& decision, const char* op);
/// Logs a line to stderr, prefixed "[tinyamp autocast] ", when the environment has
/// TINYAMP_DEBUG=1 (read once, at the first call).
void debug_log(const std::string& line);
/// Whether anyone reads the one-line explanations now: a trace recording at top level, or
/// TINYAMP_DEBUG=1. Without one, autocast builds no strings.
bool explaining();

/// \name The op's arguments as the op will see them
/// Each tensor (also in a list) through cast_argument(); a `std::optional<DType>` set to f32
/// under fp32_set_opt_dtype; anything else unchanged.
/// @{

/// An op's optional dtype argument: f32 when the decision says fp32_set_opt_dtype and the
/// caller gave none; a dtype the caller gave is kept.
inline std::optional<DType> autocast_argument(const std::optional<DType>& dtype, const Decision& d, const char*)
{
    return d.set_opt_dtype && !dtype ? std::optional<DType>(DType::f32) : dtype;
}
/// Any other argument: its tensors (map_tensors) through cast_argument(), the rest unchanged.
template <class A>
decltype(auto) autocast_argument(const A& a, const Decision& d, const char* op)
{
    return map_tensors(a, [&](const Tensor& t) { return cast_argument(t, d, op); });
}
/// @}

}  // namespace tinyamp::amp
