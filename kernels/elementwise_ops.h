#pragma once
/// \file
/// The elementwise ops both devices run, named once: an op's forward passes its kind to the CPU
/// path and to the CUDA kernels (kernels/cuda/elementwise_cuda.h), so a CUDA tensor runs the op
/// the CPU would, chosen by this enum, never looked up by a name string. The CPU's formula for
/// each kind is the lambda beside it in tinyamp/ops/elementwise_*.cpp; the CUDA one is in
/// kernels/cuda/elementwise_cuda.cu.

namespace tinyamp::kernels {

/// Two-operand ops. Arithmetic ones write the computing dtype; comparisons write bool. `neg`
/// ignores b; `relu` is a > b ? a : b (b is the 0); `relu_backward` is b > 0 ? a : 0 (relu's
/// gradient a passed where its input b was positive).
enum class BinaryOp { add, sub, mul, div, pow, neg, relu, relu_backward, eq, ne, lt, le, gt, ge };
/// One-operand float ops; `pow_scalar` raises to a number (x ** 2.0).
enum class UnaryOp { exp, log, sqrt, tanh, sigmoid, erf, gelu, pow_scalar };

/// Whether `op` compares (eq ... ge) and so writes bool.
constexpr bool is_comparison(BinaryOp op) { return op >= BinaryOp::eq; }

}  // namespace tinyamp::kernels
