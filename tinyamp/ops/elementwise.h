#pragma once
/// \file
/// Elementwise ops and the arithmetic operators, as torch.add, torch.exp, torch.where, ...
///
/// They broadcast their inputs and follow PyTorch's type promotion (see type_promotion.h).
/// f16/bf16 math runs in f32 and is rounded once into the result.
///
/// A plain number (the `double` overloads) acts as a 0-D tensor made by scalar_like(): next to
/// a float tensor it takes that tensor's dtype (an f16 tensor plus 2.5 stays f16); next to an
/// integer or bool tensor a whole number acts as an i64 and any other as an f32. A double cannot
/// tell 2 from 2.0, so an i64 tensor plus 2.0 stays i64, where PyTorch would give a float.
///
/// Autocast: on CUDA, exp, log and pow run in f32 (policy fp32); the other ops here are not in
/// the policy tables and run in their inputs' dtypes.

#include "tinyamp/tensor/tensor.h"

namespace tinyamp {

/// a + b, broadcast, in result_type(a, b) (torch.add). Two bool tensors throw a dtype Error.
Tensor add(const Tensor& a, const Tensor& b);
/// a + b for a plain number b (see elementwise.h on how a number acts next to a tensor).
Tensor add(const Tensor& a, double b);
/// a - b, broadcast, in result_type(a, b) (torch.sub). A bool tensor on either side throws a
/// dtype Error, as in PyTorch.
Tensor sub(const Tensor& a, const Tensor& b);
/// a - b for a plain number b (a bool tensor a throws a dtype Error).
Tensor sub(const Tensor& a, double b);
/// a - b for a plain number a (as PyTorch's `2 - x`; a bool tensor b throws a dtype Error).
Tensor sub(double a, const Tensor& b);
/// a * b, broadcast, in result_type(a, b) (torch.mul). Two bool tensors throw a dtype Error.
Tensor mul(const Tensor& a, const Tensor& b);
/// a * b for a plain number b.
Tensor mul(const Tensor& a, double b);
/// True division a / b, broadcast (torch.div): in result_type(a, b), but integer inputs give an
/// f32 result. Two bool tensors throw a dtype Error.
Tensor div(const Tensor& a, const Tensor& b);
/// a / b for a plain number b; integer inputs give an f32 result.
Tensor div(const Tensor& a, double b);
/// a / b for a plain number a (as PyTorch's `1 / x`); integer inputs give an f32 result.
Tensor div(double a, const Tensor& b);
/// -x in x's dtype (torch.neg). A bool tensor throws a dtype Error.
Tensor neg(const Tensor& x);
/// x to the power \p exponent (torch.pow), in x's float dtype (integers are computed in f32).
Tensor pow(const Tensor& x, double exponent);
/// x to the power \p exponent elementwise, broadcast: in result_type(x, exponent), or f32 when
/// that is an integer dtype. Differentiable in both (where x^p is 0, the gradient in p is 0).
Tensor pow(const Tensor& x, const Tensor& exponent);

// Math functions: integer inputs are computed in f32.
/// e^x (torch.exp), in x's float dtype (integers are computed in f32).
Tensor exp(const Tensor& x);
/// The natural logarithm (torch.log), in x's float dtype (integers are computed in f32).
Tensor log(const Tensor& x);
/// The square root (torch.sqrt), in x's float dtype (integers are computed in f32).
Tensor sqrt(const Tensor& x);
/// The hyperbolic tangent (torch.tanh), in x's float dtype (integers are computed in f32).
Tensor tanh(const Tensor& x);
/// 1 / (1 + e^-x) (torch.sigmoid), written so that exp never overflows; in x's float dtype
/// (integers are computed in f32).
Tensor sigmoid(const Tensor& x);
/// The error function (torch.erf), in x's float dtype (integers are computed in f32).
Tensor erf(const Tensor& x);
/// max(x, 0) in x's dtype (torch.relu); integers stay integers. A bool tensor throws a dtype Error.
Tensor relu(const Tensor& x);
/// What relu's backward runs (torch.ops.aten.threshold_backward): grad where x > threshold, else
/// 0, in one pass and in grad's dtype (the two broadcast). Bool tensors throw a dtype Error.
Tensor threshold_backward(const Tensor& grad, const Tensor& x, double threshold);
/// x * Phi(x) with the exact normal CDF (PyTorch's default, approximate='none'), in x's float
/// dtype (integers are computed in f32). On the CPU, f32, f16 and bf16 compute in f32 with an erf
/// within 1.2 ulp of libm's (kernels/cpu/gelu_kernel.h), f64 with libm's erf.
Tensor gelu(const Tensor& x);
/// What gelu's backward runs (torch.ops.aten.gelu_backward): grad (Phi(x) + x phi(x)), one pass
/// over memory on the CPU, in x's dtype; grad must have x's shape (Error(shape)). It has a
/// gradient itself, so gelu has a second derivative.
Tensor gelu_backward(const Tensor& grad, const Tensor& x);

/// Elementwise choice: cond ? a : b (torch.where). cond must be a bool tensor (else a dtype
/// Error); all three broadcast, and the result has result_type(a, b), which may be bool (two
/// bool tensors give a bool tensor, as in PyTorch). The gradient flows to a and b, never to cond.
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
/// where(cond, a, b) for a plain number b, which acts as described at the top of this file: next
/// to a float tensor it takes a's dtype, so `where(keep, scores, -INFINITY)` masks f16 scores
/// and stays f16 (as torch.where(keep, scores, float("-inf"))).
Tensor where(const Tensor& cond, const Tensor& a, double b);
/// where(cond, a, b) for a plain number a (it takes b's dtype when b is a float tensor).
Tensor where(const Tensor& cond, double a, const Tensor& b);
/// x with \p value wherever \p mask is true (torch.masked_fill): mask is a bool tensor (else a
/// dtype Error) and broadcasts with x; the result has their broadcast shape and x's dtype, the
/// value rounded once to it (-inf stays -inf in f16/bf16). An integer or bool x takes only a
/// finite value (truncated toward zero; inf or NaN is a value Error). The gradient flows to x,
/// zero where masked. In no autocast list: it runs in x's dtype, as in PyTorch.
/// The causal mask of attention: `masked_fill(scores, triu(ones({T, T}, boolean), 1), -INFINITY)`.
Tensor masked_fill(const Tensor& x, const Tensor& mask, double value);

// Comparisons give bool tensors and have no gradient.
/// a == b, broadcast and compared in result_type(a, b) (torch.eq): a bool tensor, no gradient.
Tensor eq(const Tensor& a, const Tensor& b);
/// a != b (torch.ne): a bool tensor, no gradient.
Tensor ne(const Tensor& a, const Tensor& b);
/// a < b (torch.lt): a bool tensor, no gradient.
Tensor lt(const Tensor& a, const Tensor& b);
/// a <= b (torch.le): a bool tensor, no gradient.
Tensor le(const Tensor& a, const Tensor& b);
/// a > b (torch.gt): a bool tensor, no gradient.
Tensor gt(const Tensor& a, const Tensor& b);
/// a >= b (torch.ge): a bool tensor, no gradient.
Tensor ge(const Tensor& a, const Tensor& b);
/// a == b for a plain number b: a bool tensor, no gradient.
Tensor eq(const Tensor& a, double b);
/// a != b for a plain number b: a bool tensor, no gradient.
Tensor ne(const Tensor& a, double b);
/// a < b for a plain number b: a bool tensor, no gradient.
Tensor lt(const Tensor& a, double b);
/// a <= b for a plain number b: a bool tensor, no gradient.
Tensor le(const Tensor& a, double b);
/// a > b for a plain number b: a bool tensor, no gradient.
Tensor gt(const Tensor& a, double b);
/// a >= b for a plain number b: a bool tensor, no gradient.
Tensor ge(const Tensor& a, double b);

/// add(a, b).
Tensor operator+(const Tensor& a, const Tensor& b);
/// add(a, b) for a plain number b.
Tensor operator+(const Tensor& a, double b);
/// add(b, a) for a plain number a.
Tensor operator+(double a, const Tensor& b);
/// sub(a, b).
Tensor operator-(const Tensor& a, const Tensor& b);
/// sub(a, b) for a plain number b.
Tensor operator-(const Tensor& a, double b);
/// sub(a, b) for a plain number a.
Tensor operator-(double a, const Tensor& b);
/// mul(a, b).
Tensor operator*(const Tensor& a, const Tensor& b);
/// mul(a, b) for a plain number b.
Tensor operator*(const Tensor& a, double b);
/// mul(b, a) for a plain number a.
Tensor operator*(double a, const Tensor& b);
/// div(a, b): true division (integer inputs give f32).
Tensor operator/(const Tensor& a, const Tensor& b);
/// div(a, b) for a plain number b.
Tensor operator/(const Tensor& a, double b);
/// div(a, b) for a plain number a.
Tensor operator/(double a, const Tensor& b);
/// neg(x).
Tensor operator-(const Tensor& x);

}  // namespace tinyamp
