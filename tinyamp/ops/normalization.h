#pragma once
/// \file
/// layer_norm and batch_norm, as torch.nn.functional.layer_norm and batch_norm.
///
/// Statistics of f16/bf16 inputs are computed in f32 (f64 for f64); the result has the input's
/// dtype and is rounded once. weight and bias may have any float dtype: they are applied in the
/// statistics' dtype, and their gradients come back in their own dtypes.

#include "tinyamp/tensor/tensor.h"

namespace tinyamp {

/// Layer normalization (torch.nn.functional.layer_norm, the op of nn::LayerNorm).
///
/// Normalizes over the last normalized_shape.size() dims of x, whose sizes must equal
/// normalized_shape: y = (x - mean) / sqrt(var + eps) * weight + bias, with the biased variance.
/// weight and bias (shape normalized_shape) are optional. Under CUDA autocast it runs in f32
/// (policy fp32: an f16 input gives an f32 result); CPU autocast leaves it alone.
/// Throws a dtype Error for a non-float x, weight or bias, and a shape Error for an empty or
/// mismatched normalized_shape or a weight or bias of another shape.
Tensor layer_norm(const Tensor& x, const Shape& normalized_shape, const Tensor& weight = Tensor(), const Tensor& bias = Tensor(),
                  double eps = 1e-5);

/// Batch normalization (torch.nn.functional.batch_norm, the op of nn::BatchNorm1d and nn::BatchNorm2d).
///
/// Normalizes each channel of x ([N, C], [N, C, L] or [N, C, H, W]) over N and the spatial dims.
/// - training: uses the batch's mean and biased variance, and updates running_mean/running_var in
///   place (no autograd): running = (1 - momentum) * running + momentum * batch_stat,
///   with the unbiased variance for running_var, as PyTorch does.
/// - eval: uses running_mean and running_var (constants for the gradient).
///
/// The running stats may both be undefined: the batch's statistics are then used in either mode.
/// weight and bias (shape [C]) are optional. CPU only; autocast leaves it alone. Throws a dtype
/// Error for non-float tensors, a shape Error for x below 2-D or per-channel tensors not [C], and
/// a value Error when only one running stat is given or, in training, a channel has one value.
Tensor batch_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight, const Tensor& bias,
                  bool training, double momentum = 0.1, double eps = 1e-5);

}  // namespace tinyamp
