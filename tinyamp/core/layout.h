#pragma once
// Tensor layout without autograd (floor 1). Views share storage; copies and conversions make new
// storage. The Tensor methods of the same names (x.transpose(0, 1), x.to(bf16), ...) are ops that
// go through the dispatcher and call these in their forward; use these directly only where no
// gradient should flow (inside kernels, printing, gradient bookkeeping).

#include <vector>

#include "tinyamp/core/tensor.h"

namespace tinyamp::layout {

/// A view of self's storage with the given shape, strides and offset (in elements), no checks.
Tensor as_strided(const Tensor& self, Shape shape, Strides strides, std::int64_t offset);
Tensor view(const Tensor& self, const Shape& shape);
Tensor reshape(const Tensor& self, const Shape& shape);
Tensor transpose(const Tensor& self, std::int64_t dim0, std::int64_t dim1);
Tensor t(const Tensor& self);
Tensor permute(const Tensor& self, const std::vector<std::int64_t>& dims);
Tensor slice(const Tensor& self, std::int64_t dim, std::int64_t start, std::int64_t end, std::int64_t step = 1);
Tensor narrow(const Tensor& self, std::int64_t dim, std::int64_t start, std::int64_t length);
Tensor select(const Tensor& self, std::int64_t dim, std::int64_t index);
Tensor unsqueeze(const Tensor& self, std::int64_t dim);
Tensor squeeze(const Tensor& self, std::int64_t dim);
Tensor expand(const Tensor& self, const Shape& shape);
Tensor contiguous(const Tensor& self);
Tensor clone(const Tensor& self);
/// Self if it already has `dtype`, else a converted copy (round to nearest even).
Tensor convert(const Tensor& self, DType dtype);
Tensor to_device(const Tensor& self, Device device);
/// Writes src (broadcast to dst's shape, converted to dst's dtype) into dst's elements, in place.
void copy_into(const Tensor& dst, const Tensor& src);
/// Points self at data's storage, shape, strides and dtype, keeping self's identity (its id,
/// name, grad flag, and every handle to it), as PyTorch's `param.data = data`. Module::to(dtype)
/// uses it so that optimizers built earlier still hold the module's parameters. No autograd.
void set_data(const Tensor& self, const Tensor& data);

}  // namespace tinyamp::layout
