#pragma once
/// \file
/// Tensor layout without autograd (tinyamp/tensor/): views, copies, dtype and device conversion.
///
/// Views share storage; copies and conversions make new storage. The Tensor methods of the same
/// names (x.transpose(0, 1), x.to(bf16), ...) are ops that go through the dispatcher and call
/// these in their forward; use these directly only where no gradient should flow (inside
/// kernels, printing, gradient bookkeeping). These functions are not ops: autocast does not see
/// them, nothing is recorded for backward and traces do not list them. The views keep the dtype;
/// only convert() changes it.

#include <vector>

#include "tinyamp/tensor/tensor.h"

namespace tinyamp::layout {

/// A view of self's storage with the given shape, strides and offset (in elements), no checks.
Tensor as_strided(const Tensor& self, Shape shape, Strides strides, std::int64_t offset);
/// A view with \p shape (one size may be -1), as Tensor::view. Throws Error(shape) when the
/// sizes do not hold numel elements or the strides do not allow a view (use reshape then).
Tensor view(const Tensor& self, const Shape& shape);
/// A view when the layout allows it, else a contiguous copy (clone) viewed as \p shape.
Tensor reshape(const Tensor& self, const Shape& shape);
/// A view with dimensions \p dim0 and \p dim1 swapped (negative dims count from the end).
Tensor transpose(const Tensor& self, std::int64_t dim0, std::int64_t dim1);
/// transpose(self, 0, 1) for a 2-D tensor; a 0-D or 1-D tensor comes back as itself, and more
/// dimensions throw Error(shape).
Tensor t(const Tensor& self);
/// A view with the dimensions reordered: result dimension i is self's dimension dims[i]. Each
/// dimension must be named once (Error(shape)).
Tensor permute(const Tensor& self, const std::vector<std::int64_t>& dims);
/// A view of elements start, start+step, ... below end along \p dim; start/end are clamped like
/// Python's; \p step must be positive (Error(value)).
Tensor slice(const Tensor& self, std::int64_t dim, std::int64_t start, std::int64_t end, std::int64_t step = 1);
/// A view of \p length elements from \p start (which may be negative) along \p dim; Error(index)
/// when they do not fit.
Tensor narrow(const Tensor& self, std::int64_t dim, std::int64_t start, std::int64_t length);
/// The view at \p index along \p dim, which is dropped; Error(index) when out of range.
Tensor select(const Tensor& self, std::int64_t dim, std::int64_t index);
/// A view with a new dimension of size 1 at \p dim (in -(ndim+1) .. ndim).
Tensor unsqueeze(const Tensor& self, std::int64_t dim);
/// A view without dimension \p dim if its size is 1; otherwise a view of the same shape.
Tensor squeeze(const Tensor& self, std::int64_t dim);
/// Broadcast view: sizes of 1 (or new leading dims) repeat with stride 0; -1 keeps a size.
/// Throws Error(shape) for a size that cannot be expanded.
Tensor expand(const Tensor& self, const Shape& shape);
/// Self if already contiguous, else clone(self).
Tensor contiguous(const Tensor& self);
/// A new contiguous copy on the same device, in the same dtype.
Tensor clone(const Tensor& self);
/// Self if it already has `dtype`, else a converted copy (round to nearest even).
/// To bool is x != 0, floats to i64 truncate toward zero; an element with no value in \p dtype
/// (NaN, inf or out of range going to i64) throws Error(value). CUDA tensors convert on their
/// device with the same rounding.
Tensor convert(const Tensor& self, DType dtype);
/// Self if it is already on \p device, else a contiguous copy there (Error(device) for an
/// unusable GPU).
Tensor to_device(const Tensor& self, Device device);
/// Writes src (broadcast to dst's shape, converted to dst's dtype) into dst's elements, in place.
/// Unlike Tensor::copy_ it neither checks grad mode nor bumps the storage's version.
void copy_into(const Tensor& dst, const Tensor& src);

}  // namespace tinyamp::layout
