#pragma once
/// \file
/// The two ops a GradScaler's work is made of, as PyTorch has them:
/// torch._amp_foreach_non_finite_check_and_unscale_ and torch._amp_update_scale_. They go through
/// the dispatcher like every op, so a trace shows a scaler's unscale and update, and each runs
/// where its tensors are: on a GPU, two CUDA kernels (kernels/cuda/amp_cuda.h), and the host waits for
/// the GPU once per step, to read found_inf, instead of once per gradient.

#include <cstdint>
#include <vector>

#include "tinyamp/tensor/tensor.h"

namespace tinyamp::amp {

/// PyTorch's _amp_update_scale_ rule, exactly, on plain numbers: on overflow scale *= backoff and
/// the tracker resets; otherwise the tracker counts up, and reaching growth_interval (==, after
/// the increment) multiplies the scale by growth, unless that would be inf. No floor: the scale
/// may fall below 1.
void amp_update_scale_(float& scale, std::int32_t& growth_tracker, bool found_inf, double growth_factor, double backoff_factor,
                       std::int64_t growth_interval);

/// torch._amp_foreach_non_finite_check_and_unscale_: for each of `grads` (f64, f32, f16 or bf16,
/// on the device of `found_inf`), sets `found_inf` (one f32 element) to 1 if the gradient holds an
/// inf or NaN (never back to 0), then multiplies it in place by `inv_scale` (one f32 element on
/// the same device) in f32 (f64 for f64 gradients), rounding once; an inv_scale of 1 leaves the
/// values alone. Returns found_inf. Error(device) for a tensor on another device, Error(dtype) or
/// Error(shape) for a found_inf or inv_scale that is not one f32 element.
Tensor amp_foreach_non_finite_check_and_unscale_(const std::vector<Tensor>& grads, const Tensor& found_inf, const Tensor& inv_scale);

/// torch._amp_update_scale_: the rule above, in place, on `scale` (one f32 element),
/// `growth_tracker` (one i64 element) and `found_inf` (one f32 element, non-zero for an overflow),
/// all on one device. Returns scale. Error(device), Error(dtype) or Error(shape) naming the
/// tensor that is not as described.
Tensor amp_update_scale_(const Tensor& scale, const Tensor& growth_tracker, const Tensor& found_inf, double growth_factor,
                         double backoff_factor, std::int64_t growth_interval);

}  // namespace tinyamp::amp
