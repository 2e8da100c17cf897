#pragma once
/// \file
/// Functions that make new tensors, named as in PyTorch.
///
/// Each computes its values in f64 on the host and rounds them once into the requested dtype
/// (round to nearest even; f32 unless said otherwise), as torch.tensor(..., dtype=...) does.
/// Factories are not ops: autocast does not touch them, traces do not list them, and the new
/// tensor is a leaf that does not require grad (call requires_grad_() to make a parameter).
/// A negative size in a shape throws Error (ErrorKind::shape); a value that has no value in the
/// dtype (NaN, inf or out of range going to i64) throws Error (ErrorKind::value). Values too
/// big for f16 become inf, as in PyTorch.

#include <concepts>
#include <initializer_list>
#include <vector>

#include "tinyamp/support/generator.h"
#include "tinyamp/tensor/tensor.h"

namespace tinyamp {

/// Uninitialized memory (for kernels that write every element), contiguous (torch.empty).
Tensor empty(const Shape& shape, DType dtype = f32, Device device = Device::cpu());
/// `values` in row-major order, rounded to `dtype`; values.size() must equal the shape's numel
/// (Error(shape) otherwise). E.g. `tensor({1, 2, 3, 4}, {2, 2}, f16)`.
Tensor tensor(const std::vector<double>& values, const Shape& shape, DType dtype = f32, Device device = Device::cpu());
/// A 1-D tensor of the values: tensor({1, 2.5}) or tensor({1, 2.5}, f16).
/// (The dtype is a constrained template so that tensor({4.5}, {}) means "shape {}", a scalar,
/// instead of silently picking this overload with a value-initialized dtype.)
Tensor tensor(std::initializer_list<double> values);
/// A 1-D tensor of the values in \p dtype: tensor({1, 2.5}, f16).
Tensor tensor(std::initializer_list<double> values, std::same_as<DType> auto dtype)
{
    return tensor(std::vector<double>(values), Shape{std::int64_t(values.size())}, dtype);
}
/// A 0-D (scalar) tensor on the CPU (torch.scalar_tensor).
Tensor scalar_tensor(double value, DType dtype = f32);
/// All zeros (torch.zeros).
Tensor zeros(const Shape& shape, DType dtype = f32, Device device = Device::cpu());
/// All ones (torch.ones).
Tensor ones(const Shape& shape, DType dtype = f32, Device device = Device::cpu());
/// Every element \p value, rounded to \p dtype (torch.full).
Tensor full(const Shape& shape, double value, DType dtype = f32, Device device = Device::cpu());
/// Zeros with the shape, dtype and device of \p like (torch.zeros_like); always contiguous.
Tensor zeros_like(const Tensor& like);
/// Ones with the shape, dtype and device of \p like (torch.ones_like); always contiguous.
Tensor ones_like(const Tensor& like);
/// \p value with the shape, dtype and device of \p like (torch.full_like); always contiguous.
Tensor full_like(const Tensor& like, double value);
/// 0, 1, ..., end-1 (i64 by default, as in PyTorch), on the CPU. Error(value) if end < 0.
Tensor arange(std::int64_t end, DType dtype = i64);
/// start, start+step, ... below end (f32 by default), on the CPU; each value is computed in f64
/// as start + i * step, then rounded. \p step may be negative; Error(value) when it is zero, when
/// an argument is not finite, when the step never reaches \p end, or for more than 2^40 elements.
Tensor arange(double start, double end, double step = 1.0, DType dtype = f32);
/// Uniform in [0, 1), on the CPU (torch.rand). Each value is k * 2^-(M+1) with M the dtype's
/// mantissa bits, so it is exact in the dtype and rounding can never make it 1. Float dtypes
/// only (Error(dtype) otherwise); draws one number from \p generator per element.
Tensor rand(const Shape& shape, DType dtype = f32, Generator& generator = default_generator());
/// Standard normal, on the CPU (torch.randn): drawn in f64 with Generator::normal(), then
/// rounded to the dtype. Float dtypes only (Error(dtype) otherwise).
Tensor randn(const Shape& shape, DType dtype = f32, Generator& generator = default_generator());

}  // namespace tinyamp
