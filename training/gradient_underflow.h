#pragma once
// The gradients a precision mode loses to underflow, measured the one way both tinyamp-train
// loops (digits and GPT) report it: on one batch and the current weights, the gradients are
// computed once in f32 and once in the mode (the loss multiplied by the scaler's scale, as in
// training); of the elements nonzero in f32, the share that came out exactly zero in the mode.

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include <tinyamp/tinyamp.h>

namespace tinyamp::train {

/// The share per group of parameters: \p group_of maps a parameter's name (as in
/// named_parameters()) to a group below \p groups. \p loss_of(in_mode) computes the batch's loss
/// in f32 (false) or in the mode's region (true). The model's gradients are cleared before,
/// between and after.
std::vector<double> lost_gradient_shares(nn::Module& model, const std::function<Tensor(bool in_mode)>& loss_of, double scale,
                                         std::size_t groups, const std::function<std::size_t(const std::string&)>& group_of);

}  // namespace tinyamp::train
