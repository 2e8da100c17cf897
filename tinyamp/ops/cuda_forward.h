#pragma once
// The CUDA halves of the ops' forwards (floor 3): each takes tensors that op_device() placed on
// one GPU, prepares them (dtype, broadcast views, contiguous rows) and calls the raw kernels of
// kernels/cuda. The op files (elementwise.cpp, matmul.cpp, loss.cpp, ...) keep their checks,
// their saved tensors and their backward, and branch here for CUDA tensors; a backward written
// with ops then runs on the GPU by itself.

#include <cstdint>

#include "tinyamp/core/tensor.h"
#include "tinyamp/ops/loss.h"

namespace tinyamp::cuda_forward {

/// out = op(a, b) over the broadcast shape, both converted to `dtype` (the result's dtype, or
/// bool for a comparison). `op` is the op's name: add, sub, mul, div, pow, neg, relu, eq, ne,
/// lt, le, gt, ge. A 0-D CPU operand (a scalar) is moved to the device first.
Tensor binary(const char* op, const Tensor& a, const Tensor& b, DType dtype, Device device);

/// y = op(x) in x's float dtype (f32 for integers); op is exp, log, sqrt, tanh, sigmoid, erf,
/// gelu, or pow (with `param` the exponent).
Tensor unary(const char* op, const Tensor& x, DType dtype, double param = 0.0);

/// cond ? a : b over the broadcast shape, in `dtype`.
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b, DType dtype, Device device);

/// out (contiguous, its own batch dims) = alpha * a . b + beta * out, for stacks of matrices as
/// matmul's gemm_into takes them (batch dims broadcast, transposed views read in place).
void gemm_into(const Tensor& a, const Tensor& b, const Tensor& out, double alpha, double beta);

/// cross_entropy (or nll_loss when `log_probs_given`) of [n, classes] rows and [n] i64 labels
/// on the device, reduced as asked and rounded once into the rows' dtype. `kept` counts the
/// labels that are not ignore_index (the mean's divisor).
Tensor class_loss(bool log_probs_given, const Tensor& rows, const Tensor& labels, const Shape& loss_shape, Reduction reduction,
                  std::int64_t ignore_index, std::int64_t kept);

/// mse_loss of two tensors of one shape, already in `dtype`, computed in f32 (f64 for f64).
Tensor mse_loss(const Tensor& input, const Tensor& target, DType dtype, Reduction reduction);

/// The backward masks of the class losses (see loss.cpp's TargetMasks), made on the device.
void target_masks(const Tensor& labels, std::int64_t classes, std::int64_t ignore_index, double weight, const Tensor& onehot,
                  const Tensor& row_weight);

}  // namespace tinyamp::cuda_forward
