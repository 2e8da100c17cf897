#pragma once
// The autocast layer of the dispatcher: looks the op up in the thread's policy table and casts
// the eligible tensor arguments (or sets the op's dtype argument) before the op runs.
// Eligible (PyTorch's is_eligible): defined, on the autocast device type, floating point, not f64.

#include <optional>
#include <string>
#include <vector>

#include "tinyamp/amp/autocast_state.h"
#include "tinyamp/amp/cast_policy.h"
#include "tinyamp/core/tensor.h"

namespace tinyamp::amp {

struct Decision {
    bool autocast_on = false;           ///< autocast is enabled for the op's device type
    DeviceType device_type = DeviceType::cpu;
    std::optional<CastPolicy> policy;   ///< nullopt: the op is not listed
    DType target = DType::f32;          ///< lower_precision_fp / fp32 / promote: what eligible inputs become
    bool set_opt_dtype = false;         ///< fp32_set_opt_dtype with an eligible first input
    const char* rule = "";              ///< "lower_precision_fp", ..., "not listed", or "" (autocast off)
    std::string why;                    ///< one line, built only when explaining() (trace or TINYAMP_DEBUG)
};

bool is_eligible(const Tensor& t, DeviceType device_type);
/// Decides for op `op` given its tensor arguments in order; throws for banned ops and for the
/// f16-with-bf16 mix under promote.
Decision decide(const char* op, const std::vector<Tensor>& tensors);
/// One tensor argument, cast as the decision says (recording the cast in the trace).
Tensor cast_argument(const Tensor& t, const Decision& decision, const char* op);
/// Logs a line to stderr when the environment has TINYAMP_DEBUG=1.
void debug_log(const std::string& line);
/// Whether anyone reads the one-line explanations now: a trace recording at top level, or
/// TINYAMP_DEBUG=1. Without one, autocast builds no strings.
bool explaining();

// The op's arguments as the op will see them: tensors (also in vectors) cast, a std::optional<DType>
// set to f32 under fp32_set_opt_dtype, anything else unchanged.
inline Tensor transform_argument(const Tensor& t, const Decision& d, const char* op) { return cast_argument(t, d, op); }
inline std::vector<Tensor> transform_argument(const std::vector<Tensor>& ts, const Decision& d, const char* op)
{
    std::vector<Tensor> out;
    out.reserve(ts.size());
    for (const Tensor& t : ts) out.push_back(cast_argument(t, d, op));
    return out;
}
inline std::optional<DType> transform_argument(const std::optional<DType>& dtype, const Decision& d, const char*)
{
    return d.set_opt_dtype && !dtype ? std::optional<DType>(DType::f32) : dtype;
}
template <class A>
const A& transform_argument(const A& a, const Decision&, const char*)
{
    return a;
}

}  // namespace tinyamp::amp
