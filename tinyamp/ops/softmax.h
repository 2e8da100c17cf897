#pragma once
/// \file
/// softmax and log_softmax along one dimension, as torch.softmax and torch.log_softmax.
///
/// Both are numerically stable (the row's maximum is subtracted first). f16/bf16 inputs are
/// computed in f32 and rounded once.
///
/// `dtype` is PyTorch's dtype= argument: the input is converted to it inside the op and the result
/// has that dtype. Autocast uses it to get an f32 result from an f16 input without a separate cast
/// node (policy fp32_set_opt_dtype, in the CUDA table); the gradient goes back to the input in the
/// input's dtype. The result's dtype must be floating point: a non-float input without a float
/// `dtype`, or a non-float `dtype`, is a dtype Error.

#include <optional>

#include "tinyamp/tensor/tensor.h"

namespace tinyamp {

/// e^x / sum(e^x) along \p dim (negative counts from the end): each slice along \p dim sums
/// to 1. The result has \p dtype if given, else x's dtype.
Tensor softmax(const Tensor& x, std::int64_t dim, std::optional<DType> dtype = std::nullopt);
/// log(softmax(x)), computed as (x - max) - log(sum(e^(x - max))), so it stays finite where
/// softmax rounds to 0. The result has \p dtype if given, else x's dtype.
Tensor log_softmax(const Tensor& x, std::int64_t dim, std::optional<DType> dtype = std::nullopt);

}  // namespace tinyamp
