#pragma once
// Lab 12: loss scaling by hand. Write these in lab.cpp; check them with:  scripts/lab check 12
// Together they are one f16 training step without GradScaler:
//
//     const double S = pick_scale(max_abs_grad_seen_so_far);       // 12.3
//     scaled_backward(loss, S);                                    // 12.1
//     if (!unscale_and_check(params, S)) optimizer.step();         // 12.2: skip the step on inf/NaN
#include <vector>

#include <tinyamp/tinyamp.h>

namespace tinyamp::lab12 {

/// Backward from loss * scale instead of from loss. Every gradient that reaches a leaf is then
/// `scale` times its true value, and small ones survive the f16 part of the backward.
/// Returns the scaled loss (a 0-d tensor: loss * scale).
Tensor scaled_backward(const Tensor& loss, double scale);

/// Divides the gradient of each of `params` by `scale`, in place and in f32: multiplies it by
/// 1/scale, with the reciprocal taken in f64 and rounded to f32 (as GradScaler::unscale_ does).
/// Parameters without a gradient are skipped. Returns found_inf: true when any gradient holds
/// an inf or a NaN (then the caller must skip the optimizer step).
bool unscale_and_check(const std::vector<Tensor>& params, double scale);

/// A static loss scale chosen from the largest gradient magnitude (NVIDIA's rule): the largest
/// power of two S with S * max_abs_grad <= 65504, f16's largest number. Throws tinyamp::Error
/// when max_abs_grad is not a finite number > 0.
double pick_scale(double max_abs_grad);

}  // namespace tinyamp::lab12
