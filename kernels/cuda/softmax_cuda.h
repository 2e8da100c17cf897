#pragma once
// CUDA softmax and log-softmax along one dimension of a contiguous buffer seen as
// [outer, n, inner] (the n values of one lane lie `inner` apart), and layer norm's forward over
// rows. Same formulas as kernels/cpu/softmax_loops.h and normalization_loops.h, computed in f32 for f16/bf16
// (f64 for f64), each result rounded once.

#include <cstdint>

#include "tinyamp/values/dtype.h"

namespace tinyamp::kernels::cuda {

/// y = softmax (or log_softmax when `log`) of x along the middle dimension.
void softmax_lanes(const void* x, void* y, DType dtype, std::int64_t outer, std::int64_t n, std::int64_t inner, bool log, int device);

/// Layer norm over contiguous rows of length cols: y = (x - mean) * rstd * weight + bias, with
/// the biased variance. weight and bias (cols values, in `acc_dtype`) may be null. mean and rstd
/// (rows values each, in acc_dtype: f32, or f64 for f64 inputs) are written for the backward.
void layer_norm_rows(const void* x, DType dtype, std::int64_t rows, std::int64_t cols, double eps, const void* weight, const void* bias,
                     DType acc_dtype, void* y, void* mean, void* rstd, int device);

}  // namespace tinyamp::kernels::cuda
