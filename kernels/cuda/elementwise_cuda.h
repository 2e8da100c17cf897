#pragma once
// CUDA elementwise kernels over raw device buffers (no CUDA types here, so ops compiled by g++
// call them). Each element is loaded into its compute type (f32 for f16/bf16/f32, f64 for f64,
// i64 for i64/bool), computed there, and rounded once when stored, as on the CPU.

#include <cstdint>

#include "kernels/cuda/strided_copy_cuda.h"
#include "kernels/elementwise_ops.h"
#include "tinyamp/values/dtype.h"

namespace tinyamp::kernels::cuda {

// The ops, as the CPU names them (kernels/elementwise_ops.h): `neg` ignores b, `relu` is
// a > b ? a : b (b is the 0), exactly the CPU lambdas; `pow_scalar` raises to `param`.
using kernels::BinaryOp;
using kernels::is_comparison;
using kernels::UnaryOp;

/// Shape and per-operand strides (in elements; 0 along a broadcast dimension) of a broadcast
/// op; the output is contiguous over `shape`. At most kMaxDims dimensions.
struct BroadcastLayout {
    int ndim = 0;
    std::int64_t shape[kMaxDims] = {};
    std::int64_t strides[3][kMaxDims] = {};  ///< [operand][dim]; operand 0..2 as each op names them
};

/// out = op(a, b) with both inputs in `dtype`, over layout.shape.
void binary(BinaryOp op, DType dtype, const void* a, const void* b, const BroadcastLayout& layout, void* out, int device);

/// y = op(x) for n contiguous elements of a float `dtype`.
void unary(UnaryOp op, DType dtype, const void* x, void* y, std::int64_t n, double param, int device);

/// out = cond ? a : b, cond bool, a and b in `dtype` (operands 0, 1, 2 of the layout).
void where(const bool* cond, const void* a, const void* b, DType dtype, const BroadcastLayout& layout, void* out, int device);

/// Writes `value` (rounded to dtype) into n contiguous elements.
void fill(void* dst, DType dtype, std::int64_t n, double value, int device);

}  // namespace tinyamp::kernels::cuda
