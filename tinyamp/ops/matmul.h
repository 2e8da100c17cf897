#pragma once
/// \file
/// Matrix products, as in PyTorch: matmul, mm, bmm, addmm and linear.
///
/// Both operands must have the same floating point dtype: a product never promotes (under
/// autocast the policy casts both first). f16/bf16 products accumulate in f32 and round once into
/// the result, and their backward runs in the same dtype.
///
/// Autocast (CPU and CUDA) casts every f16/bf16/f32 operand to the autocast dtype (policy
/// lower_precision_fp), so an f32 model runs its products in f16 or bf16 there. Each op throws a
/// dtype Error for mixed or non-float dtypes, naming the .to() that fixes it, and a shape Error
/// for shapes that do not multiply.

#include <initializer_list>
#include <vector>

#include "tinyamp/tensor/tensor.h"

namespace tinyamp {

/// The matrix product of \p a and \p b, by their dimensions, as torch.matmul.
/// - 1-D · 1-D: the dot product (0-D result);
/// - 2-D · 2-D: the matrix product;
/// - 1-D · n-D: the vector as a row [1, K], that dim dropped again; n-D · 1-D: as a column [K, 1];
/// - 3-D and up: a stack of products over the leading (batch) dims, which broadcast
///   ([B, M, K] · [K, N], [1, M, K] · [B, K, N], ...).
///
/// The result has the operands' dtype. A 0-D operand is a shape Error (use mul).
Tensor matmul(const Tensor& a, const Tensor& b);
/// The matrix product [M, K] · [K, N] only (torch.mm), in the operands' dtype.
Tensor mm(const Tensor& a, const Tensor& b);
/// The batched product [B, M, K] · [B, K, N] only (torch.bmm), in the operands' dtype: equal
/// batch sizes (matmul broadcasts, bmm does not).
Tensor bmm(const Tensor& a, const Tensor& b);
/// beta * bias + alpha * (a · b) for 2-D a and b (torch.addmm), with bias broadcast to [M, N]
/// and the sum rounded once. All three share one float dtype. With beta == 0 the bias is ignored
/// (even its NaNs), as in PyTorch.
Tensor addmm(const Tensor& bias, const Tensor& a, const Tensor& b, double beta = 1.0, double alpha = 1.0);
/// x · weight^T + bias, as torch.nn.functional.linear (the op of nn::Linear).
/// x [..., in_features], weight [out_features, in_features], bias [out_features] or undefined;
/// the result is [..., out_features] in their shared float dtype, the bias added before the one
/// rounding.
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias = Tensor());

namespace detail {
/// The dtype check of every matrix product (and conv2d): `tensors` (undefined ones skipped) must
/// share one floating point dtype; `operands` names them in the message ("input and weight").
void check_same_float_dtype(const char* op, const char* operands, std::initializer_list<Tensor> tensors);
/// out = alpha * a · b + beta * out without autograd, for ops built on a GEMM (conv2d): a [..., M, K]
/// and b [..., K, N] with any strides (batch dims broadcast), out [batch..., M, N] contiguous, all
/// of one float dtype, on the CPU. Transposed views are read in place.
void gemm_into(const Tensor& a, const Tensor& b, const Tensor& out, double alpha = 1.0, double beta = 0.0);
/// The batch dims of a matrix or a stack of them, m [..., R, C] (at least 2-D): all but the last two.
Shape batch_dims(const Tensor& m);
/// m [..., R, C] broadcast to the batch dims `batch` and flattened to a stack [count, R, C]: a
/// view (batch stride 0 where m is broadcast) unless merging its batch dims needs a copy. The
/// CPU and CUDA gemm_into both hand batched products to their kernels this way.
Tensor as_stack(const Tensor& m, const Shape& batch);
/// Which way gemm_bias_into broadcasts its bias vector over out [M, N].
enum class BiasAcross {
    each_row,     ///< bias [N] added to every row (linear)
    each_column,  ///< bias [M] added to every column (conv2d: one value per output channel)
};
/// out = a · b + bias for 2-D a [M, K] and b [K, N] (any strides), out [M, N] contiguous, all of
/// one float dtype; the sum and the bias are added in f32 and rounded once, as PyTorch's addmm.
/// On the CPU the GEMM kernel adds the bias in its epilogue; an undefined bias adds nothing.
void gemm_bias_into(const Tensor& a, const Tensor& b, const Tensor& bias, BiasAcross along, const Tensor& out);
}  // namespace detail

}  // namespace tinyamp
