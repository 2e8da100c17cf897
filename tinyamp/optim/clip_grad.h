#pragma once
/// \file
/// Gradient clipping by total norm, as torch.nn.utils.clip_grad_norm_.
///
/// With a GradScaler, call scaler.unscale_(optimizer) first, so the norm is of the true gradients.

#include <vector>

#include "tinyamp/tensor/tensor.h"

namespace tinyamp::optim {

/// Scales all gradients together so their total 2-norm is at most \p max_norm; returns the norm
/// before clipping (torch.nn.utils.clip_grad_norm_).
///
/// The norm is summed in f64 over every parameter that has a gradient. When the factor
/// max_norm / (norm + 1e-6) is below 1 (or NaN), the gradients are multiplied by it in place,
/// each rounded once into its own dtype. A non-finite norm is a value Error only with
/// \p error_if_nonfinite; otherwise, as in PyTorch, an inf norm turns the gradients into 0 (inf
/// entries into NaN) and a NaN norm turns them all into NaN.
double clip_grad_norm_(const std::vector<Tensor>& params, double max_norm, bool error_if_nonfinite = false);

}  // namespace tinyamp::optim
