#pragma once
/// \file
/// The CUDA halves of the ops' forwards (on the ops' floor, `tinyamp/ops/`), namespace tinyamp::cuda_forward.
///
/// Each function takes tensors that op_device() placed on one GPU, prepares them (dtype,
/// broadcast views, contiguous rows) and calls the raw kernels of kernels/cuda. The op files
/// (elementwise_arithmetic.cpp, matmul.cpp, loss.cpp, ...) keep their checks, their saved tensors
/// and their backward, and branch here for CUDA tensors; a backward written with ops then runs on
/// the GPU by itself. These are building blocks for the ops, not user API: they record no graph
/// node and check little, so call the ops (add, matmul, cross_entropy, ...) instead.

#include <cstdint>

#include "tinyamp/tensor/tensor.h"
#include "kernels/elementwise_ops.h"
#include "tinyamp/ops/loss.h"

namespace tinyamp::cuda_forward {

/// out = op(a, b) over the broadcast shape, both converted to \p dtype, on \p device.
/// The result has \p dtype, or is bool for a comparison. \p kind is the kind the CPU path runs
/// too (kernels/elementwise_ops.h). A 0-D CPU operand (a scalar) is converted on the host and
/// moved to the device first.
Tensor binary(kernels::BinaryOp kind, const Tensor& a, const Tensor& b, DType dtype, Device device);

/// y = op(x), computed in and returned as \p dtype (the callers pass x's float dtype, f32 for
/// integers); \p param is pow_scalar's exponent.
Tensor unary(kernels::UnaryOp kind, const Tensor& x, DType dtype, double param = 0.0);

/// cond ? a : b over the broadcast shape of all three, in \p dtype, on \p device.
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b, DType dtype, Device device);

/// out = alpha * a . b + beta * out with cuBLAS, for stacks of matrices as matmul's gemm_into
/// takes them: out contiguous with its own batch dims, a and b broadcast to them, transposed
/// views read in place. All three share out's float dtype.
void gemm_into(const Tensor& a, const Tensor& b, const Tensor& out, double alpha, double beta);

/// cross_entropy (or nll_loss when \p log_probs_given) of [n, classes] rows and [n] i64 labels
/// on the device: per-row losses in f32 (f64 for f64), reduced as asked, then rounded once into
/// the rows' dtype and shaped \p loss_shape for Reduction::none. \p kept counts the labels that
/// are not \p ignore_index (the mean's divisor; a mean over none is NaN).
Tensor class_loss(bool log_probs_given, const Tensor& rows, const Tensor& labels, const Shape& loss_shape, Reduction reduction,
                  std::int64_t ignore_index, std::int64_t kept);

/// mse_loss of two tensors of one shape, already in \p dtype: computed in f32 (f64 for f64),
/// reduced as asked and rounded once into \p dtype.
Tensor mse_loss(const Tensor& input, const Tensor& target, DType dtype, Reduction reduction);

/// The backward masks of the class losses (see loss.cpp's TargetMasks), made on the device:
/// \p onehot [n, classes] gets 1 at each kept sample's class and \p row_weight [n, 1] gets
/// \p weight for each kept sample. Both are zero-filled by the caller (ignored samples keep
/// their 0s) and are f32 or f64.
void target_masks(const Tensor& labels, std::int64_t classes, std::int64_t ignore_index, double weight, const Tensor& onehot,
                  const Tensor& row_weight);

}  // namespace tinyamp::cuda_forward
