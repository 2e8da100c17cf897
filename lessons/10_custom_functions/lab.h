#pragma once
// Lab 10: custom functions under autocast. Write these in lab.cpp; check them with:  scripts/lab check 10
#include <functional>
#include <vector>

#include <tinyamp/tinyamp.h>

namespace tinyamp::lab10 {

/// silu(x) = x * sigmoid(x), as a custom Function with a hand-written backward
/// (d silu/dx = s + x s (1 - s), s = sigmoid(x)).
Tensor silu(const Tensor& x);

/// By hand, what custom_fwd(cast_inputs = f32) does around a forward: when autocast is on for the
/// CPU, cast every floating input that is not f64 to f32 and call `forward` with autocast off;
/// when it is off, call `forward` on the inputs unchanged.
Tensor run_with_cast_inputs_f32(const std::function<Tensor(const std::vector<Tensor>&)>& forward, const std::vector<Tensor>& inputs);

/// a @ b as a custom Function declared with custom_fwd and custom_bwd (no cast_inputs), whose
/// backward records what it saw in last_backward_seen().
Tensor my_mm(const Tensor& a, const Tensor& b);

struct BackwardSeen {
    bool autocast_enabled = false;   ///< amp::is_autocast_enabled(cpu) inside backward
    DType autocast_dtype = DType::f64;  ///< amp::get_autocast_dtype(cpu) inside backward
    DType grad_dtype = DType::f64;   ///< the dtype of the gradient backward received
};
/// What my_mm's backward saw the last time it ran.
BackwardSeen last_backward_seen();

}  // namespace tinyamp::lab10
