#pragma once
/// \file
/// cat and stack: joining tensors, as torch.cat and torch.stack.
///
/// cat puts them end to end along an existing dim, stack along a new one. Mixed dtypes meet in
/// their promoted dtype (an f16 and an f32 tensor give f32); the gradient of each input is its
/// own slice of the output's gradient, in the input's dtype. Both run on the CPU only (a device
/// Error otherwise). Under CPU autocast both are policy promote: f16/bf16/f32 inputs are cast to
/// f32 when one of them is f32, else to the autocast dtype; a low-precision input of the other
/// kind (f16 in a bf16 region) can throw a dtype Error there.

#include <vector>

#include "tinyamp/tensor/tensor.h"

namespace tinyamp {

/// Joins tensors end to end along \p dim (torch.cat). They must have equal shapes except along
/// \p dim (negative counts from the end); the result has their promoted dtype.
/// As in PyTorch, a 1-D tensor with no elements may sit in any list and is skipped.
/// Throws a value Error for an empty list or an undefined tensor, a shape Error for a 0-D tensor
/// or mismatched shapes, and an index Error for a \p dim out of range.
Tensor cat(const std::vector<Tensor>& tensors, std::int64_t dim = 0);
/// Tensors of one shape, joined along a new dimension \p dim in [-(ndim+1), ndim] (torch.stack);
/// the result has their promoted dtype. Throws a value Error for an empty list or an undefined
/// tensor, a shape Error for shapes that differ, and an index Error for a \p dim out of range.
Tensor stack(const std::vector<Tensor>& tensors, std::int64_t dim = 0);

}  // namespace tinyamp
