#pragma once
// Joining tensors, as in PyTorch: cat puts them end to end along an existing dim, stack along a new
// one. Mixed dtypes meet in their promoted dtype (an f16 and an f32 tensor give f32); the gradient
// of each input is its own slice of the output's gradient, in the input's dtype.

#include <vector>

#include "tinyamp/core/tensor.h"

namespace tinyamp {

/// Tensors of equal shape except along `dim` (negative counts from the end), end to end along it.
/// As in PyTorch, a 1-D tensor with no elements may sit in any list and is skipped.
Tensor cat(const std::vector<Tensor>& tensors, std::int64_t dim = 0);
/// Tensors of one shape, joined along a new dimension `dim` (in [-(ndim+1), ndim]).
Tensor stack(const std::vector<Tensor>& tensors, std::int64_t dim = 0);

}  // namespace tinyamp
