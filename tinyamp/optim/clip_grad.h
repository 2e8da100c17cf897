#pragma once
// Gradient clipping by total norm, as torch.nn.utils.clip_grad_norm_. With a GradScaler, call
// scaler.unscale_(optimizer) first, so the norm is of the true gradients.

#include <vector>

#include "tinyamp/core/tensor.h"

namespace tinyamp::optim {

/// Scales all gradients together so their total 2-norm is at most max_norm; returns the norm
/// before clipping. A non-finite norm is an error only with error_if_nonfinite.
double clip_grad_norm_(const std::vector<Tensor>& params, double max_norm, bool error_if_nonfinite = false);

}  // namespace tinyamp::optim
