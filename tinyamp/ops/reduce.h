#pragma once
// Reductions. f16/bf16 inputs are summed in f32 and the result rounded once into the input's dtype.

#include <optional>
#include <vector>

#include "tinyamp/core/tensor.h"

namespace tinyamp {

/// The sum of all elements, as a 0-D tensor (integers and bool sum to i64). With `dtype`, x is
/// converted to it inside the op and the sum has that dtype (PyTorch's dtype= argument, which
/// autocast's fp32_set_opt_dtype policy sets to f32).
Tensor sum(const Tensor& x, std::optional<DType> dtype = std::nullopt);
/// The sum over `dims`; with keepdim the reduced dims stay, with size 1.
Tensor sum(const Tensor& x, const std::vector<std::int64_t>& dims, bool keepdim = false, std::optional<DType> dtype = std::nullopt);
Tensor mean(const Tensor& x);
Tensor mean(const Tensor& x, const std::vector<std::int64_t>& dims, bool keepdim = false);

/// The largest element (0-D). Its gradient goes to the first position holding it.
Tensor max(const Tensor& x);
struct MaxResult {
    Tensor values;   ///< differentiable
    Tensor indices;  ///< i64, where each maximum was found
};
/// The largest elements along `dim`, and where they are.
MaxResult max(const Tensor& x, std::int64_t dim, bool keepdim = false);
/// Where the largest element along `dim` is (i64; no gradient).
Tensor argmax(const Tensor& x, std::int64_t dim, bool keepdim = false);
/// The flat index of the largest element (i64, 0-D).
Tensor argmax(const Tensor& x);

/// Sums `x` down to `shape` (the inverse of broadcasting `shape` up to x's shape): the gradient
/// of a broadcast input. Returns x itself when the shapes already match.
Tensor sum_to(const Tensor& x, const Shape& shape);

}  // namespace tinyamp
