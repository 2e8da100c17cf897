#pragma once
// CUDA row reductions over a contiguous [rows, cols] device buffer (the ops lay the reduced dims
// last first), accumulating in f32 for f16/bf16/f32, f64 for f64 and i64 for i64/bool: the
// answer is rounded once, at the end. The order of the additions is a tree, not the CPU's left
// to right, so f32 sums differ from the CPU's in the last bits.

#include <cstdint>

#include "tinyamp/values/dtype.h"

namespace tinyamp::kernels::cuda {

/// out[r] = scale * sum of row r, stored as out_dtype (i64 for integer and bool inputs).
void sum_rows(const void* x, DType dtype, std::int64_t rows, std::int64_t cols, void* out, DType out_dtype, double scale, int device);

/// The largest value of each row and its first position; NaN counts as the largest (as on the
/// CPU and in PyTorch). values (dtype) or indices may be null. cols must be > 0.
void max_rows(const void* x, DType dtype, std::int64_t rows, std::int64_t cols, void* values, std::int64_t* indices, int device);

/// out[r] = x[r * cols + index[r]] (elements of element_size bytes).
void take_along_rows(const void* x, std::int64_t element_size, std::int64_t rows, std::int64_t cols, const std::int64_t* index, void* out,
                     int device);

/// dst[r * cols + index[r]] = src[r]; the rest of dst is left as it is (zero it first).
void put_along_rows(const void* src, std::int64_t element_size, std::int64_t rows, std::int64_t cols, const std::int64_t* index, void* dst,
                    int device);

}  // namespace tinyamp::kernels::cuda
