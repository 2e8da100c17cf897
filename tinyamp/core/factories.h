#pragma once
// Functions that make new tensors, named as in PyTorch.

#include <concepts>
#include <initializer_list>
#include <vector>

#include "tinyamp/core/generator.h"
#include "tinyamp/core/tensor.h"

namespace tinyamp {

/// Uninitialized memory (for kernels that write every element).
Tensor empty(const Shape& shape, DType dtype = f32, Device device = Device::cpu());
/// `values` in row-major order, rounded to `dtype`; values.size() must equal the shape's numel.
Tensor tensor(const std::vector<double>& values, const Shape& shape, DType dtype = f32, Device device = Device::cpu());
/// A 1-D tensor of the values: tensor({1, 2.5}) or tensor({1, 2.5}, f16).
/// (The dtype is a constrained template so that tensor({4.5}, {}) means "shape {}", a scalar,
/// instead of silently picking this overload with a value-initialized dtype.)
Tensor tensor(std::initializer_list<double> values);
Tensor tensor(std::initializer_list<double> values, std::same_as<DType> auto dtype)
{
    return tensor(std::vector<double>(values), Shape{std::int64_t(values.size())}, dtype);
}
/// A 0-D (scalar) tensor.
Tensor scalar_tensor(double value, DType dtype = f32);
Tensor zeros(const Shape& shape, DType dtype = f32, Device device = Device::cpu());
Tensor ones(const Shape& shape, DType dtype = f32, Device device = Device::cpu());
Tensor full(const Shape& shape, double value, DType dtype = f32, Device device = Device::cpu());
Tensor zeros_like(const Tensor& like);
Tensor ones_like(const Tensor& like);
Tensor full_like(const Tensor& like, double value);
/// 0, 1, ..., end-1 (i64 by default, as in PyTorch).
Tensor arange(std::int64_t end, DType dtype = i64);
/// start, start+step, ... below end (f32 by default).
Tensor arange(double start, double end, double step = 1.0, DType dtype = f32);
/// Uniform in [0, 1).
Tensor rand(const Shape& shape, DType dtype = f32, Generator& generator = default_generator());
/// Standard normal.
Tensor randn(const Shape& shape, DType dtype = f32, Generator& generator = default_generator());

}  // namespace tinyamp
