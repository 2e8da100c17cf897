#pragma once
// layer_norm and batch_norm, with PyTorch's semantics. Statistics of f16/bf16 inputs are
// computed in f32; the result has the input's dtype and is rounded once.

#include "tinyamp/core/tensor.h"

namespace tinyamp {

/// Normalizes over the last normalized_shape.size() dims of x, whose sizes must equal
/// normalized_shape: y = (x - mean) / sqrt(var + eps) * weight + bias, with the biased variance.
/// weight and bias (shape normalized_shape) are optional.
Tensor layer_norm(const Tensor& x, const Shape& normalized_shape, const Tensor& weight = Tensor(), const Tensor& bias = Tensor(),
                  double eps = 1e-5);

/// Normalizes each channel of x ([N, C], [N, C, L] or [N, C, H, W]) over N and the spatial dims.
///   training: uses the batch's mean and biased variance, and updates running_mean/running_var in
///             place (no autograd): running = (1 - momentum) * running + momentum * batch_stat,
///             with the unbiased variance for running_var, as PyTorch does.
///   eval:     uses running_mean and running_var.
/// The running stats may both be undefined: the batch's statistics are then used in either mode.
/// weight and bias (shape [C]) are optional.
Tensor batch_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight, const Tensor& bias,
                  bool training, double momentum = 0.1, double eps = 1e-5);

}  // namespace tinyamp
