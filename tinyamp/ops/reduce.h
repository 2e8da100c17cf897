#pragma once
/// \file
/// Reductions: sum, mean, max, argmax and count_nonzero, as torch.sum, torch.mean, torch.max,
/// torch.argmax and torch.count_nonzero.
///
/// f16/bf16 inputs are summed in f32 and the result rounded once into the input's dtype.
/// A dims list names each dim once (negative counts from the end); a dim out of range or named
/// twice is an index Error.

#include <optional>
#include <vector>

#include "tinyamp/tensor/tensor.h"

namespace tinyamp {

/// The sum of all elements, as a 0-D tensor (torch.sum); integers and bool sum to i64. With
/// \p dtype, x is converted to it inside the op and the sum has that dtype (PyTorch's dtype=
/// argument, which CUDA autocast's fp32_set_opt_dtype policy sets to f32 for an f16/bf16/f32 x);
/// the gradient goes back to x in x's own dtype.
Tensor sum(const Tensor& x, std::optional<DType> dtype = std::nullopt);
/// The sum over \p dims; with \p keepdim the reduced dims stay, with size 1. Dtypes as sum(x).
/// An empty \p dims is an index Error (call sum(x) to reduce all dims), except for a 0-D x.
Tensor sum(const Tensor& x, const std::vector<std::int64_t>& dims, bool keepdim = false, std::optional<DType> dtype = std::nullopt);
/// The mean of all elements, as a 0-D tensor in x's dtype (torch.mean); summed in f32 for
/// f16/bf16. x must be floating point (else a dtype Error).
Tensor mean(const Tensor& x);
/// The mean over \p dims; with \p keepdim the reduced dims stay, with size 1. Dtypes as mean(x);
/// an empty \p dims is an index Error (call mean(x) to reduce all dims), except for a 0-D x.
Tensor mean(const Tensor& x, const std::vector<std::int64_t>& dims, bool keepdim = false);

/// The largest element (0-D, torch.max(x)), in x's dtype; NaN counts as the largest, as in
/// PyTorch. Its gradient goes to the first position holding it. An empty x is a shape Error.
Tensor max(const Tensor& x);
/// What max(x, dim) returns: the maxima and their positions (PyTorch's (values, indices) tuple).
struct MaxResult {
    Tensor values;   ///< differentiable
    Tensor indices;  ///< i64, where each maximum was found
};
/// The largest elements along \p dim (torch.max(x, dim)), and where they are (the first
/// position on ties). The values have x's dtype and a gradient; the indices are i64.
MaxResult max(const Tensor& x, std::int64_t dim, bool keepdim = false);
/// Where the largest element along \p dim is (torch.argmax): i64, the first position on ties,
/// no gradient.
Tensor argmax(const Tensor& x, std::int64_t dim, bool keepdim = false);
/// The flat index of the largest element (i64, 0-D; torch.argmax(x)).
Tensor argmax(const Tensor& x);
/// How many elements of \p x are not zero (torch.count_nonzero(x) over all dims): i64, 0-D, no
/// gradient. +0 and -0 count as zero, NaN as nonzero (x != 0, as in PyTorch).
Tensor count_nonzero(const Tensor& x);

/// Sums \p x down to \p shape (the inverse of broadcasting \p shape up to x's shape): the
/// gradient of a broadcast input. Returns x itself when the shapes already match; a shape that
/// x is not a broadcast of is a shape Error.
Tensor sum_to(const Tensor& x, const Shape& shape);

}  // namespace tinyamp
