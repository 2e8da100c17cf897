#pragma once
/// \file
/// Shapes and strides (in elements, as PyTorch counts them) and the index arithmetic on them.

#include <cstdint>
#include <iosfwd>
#include <string>

#include "tinyamp/values/small_vector.h"

namespace tinyamp {

/// The sizes of a tensor's dimensions, outermost first (torch.Size); `{}` is a scalar's shape.
/// Inline up to 6 dimensions (no allocation for the tensors tinyamp meets); more still work.
using Shape = SmallVector<std::int64_t, 6>;
/// How many elements (not bytes) to step in storage to move one index along each dimension.
using Strides = SmallVector<std::int64_t, 6>;

/// "[2, 3]"; a scalar's shape prints as "[]".
std::string shape_str(const Shape& shape);
/// The product of the sizes (1 for a scalar's `{}`). A product beyond 64 bits is Error(shape).
std::int64_t numel(const Shape& shape);
/// Row-major strides: the last dimension moves fastest.
Strides contiguous_strides(const Shape& shape);

/// Turns a possibly negative dimension into 0..ndim-1, or throws Error(index) naming the range.
/// A 0-D tensor accepts 0 and -1 (both give 0), as PyTorch's reductions do.
std::int64_t wrap_dim(std::int64_t dim, std::int64_t ndim);
/// Turns a possibly negative index into 0..size-1, or throws Error(index) naming dim and size.
std::int64_t wrap_index(std::int64_t index, std::int64_t size, std::int64_t dim);
/// Replaces one -1 in `shape` by what makes numel equal `total`; throws Error(shape) otherwise.
Shape infer_size(const Shape& shape, std::int64_t total);

/// The shape two shapes broadcast to (aligned at the right; each pair of sizes must be equal or
/// one of them 1), or Error(shape) naming both shapes and the dimension that clashes.
Shape broadcast_shapes(const Shape& a, const Shape& b);
/// Whether broadcast_shapes(a, b) has an answer: for ops that check first and then say in their
/// own words what clashes.
bool broadcastable(const Shape& a, const Shape& b);

/// The result of view_strides(): strides for the view, or `ok == false` when there is none.
struct ViewStrides {
    bool ok;          ///< whether the view is possible
    Strides strides;  ///< the view's strides (empty when not \c ok)
};
/// Strides that let a tensor of (old_shape, old_strides) be viewed as new_shape without a copy,
/// or an empty optional-like result (`ok == false`) when the memory layout does not allow it.
/// The same algorithm as PyTorch's view. Callers check new_shape first (infer_size), so that it
/// holds as many elements as old_shape.
ViewStrides view_strides(const Shape& old_shape, const Strides& old_strides, const Shape& new_shape);

}  // namespace tinyamp
