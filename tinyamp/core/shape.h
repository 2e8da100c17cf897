#pragma once
// Shapes and strides (in elements, as PyTorch counts them) and the index arithmetic on them.

#include <cstdint>
#include <iosfwd>
#include <string>

#include "tinyamp/core/small_vector.h"

namespace tinyamp {

// Inline up to 6 dimensions (no allocation for the tensors tinyamp meets); more still work.
using Shape = SmallVector<std::int64_t, 6>;
using Strides = SmallVector<std::int64_t, 6>;

/// "[2, 3]"; a scalar's shape prints as "[]".
std::string shape_str(const Shape& shape);
std::int64_t numel(const Shape& shape);
/// Row-major strides: the last dimension moves fastest.
Strides contiguous_strides(const Shape& shape);

/// Turns a possibly negative dimension into 0..ndim-1, or throws Error(index) naming the range.
std::int64_t wrap_dim(std::int64_t dim, std::int64_t ndim);
/// Turns a possibly negative index into 0..size-1, or throws Error(index) naming dim and size.
std::int64_t wrap_index(std::int64_t index, std::int64_t size, std::int64_t dim);
/// Replaces one -1 in `shape` by what makes numel equal `total`; throws Error(shape) otherwise.
Shape infer_size(const Shape& shape, std::int64_t total);

/// The shape two shapes broadcast to (aligned at the right; each pair of sizes must be equal or
/// one of them 1), or Error(shape) naming both shapes and the dimension that clashes.
Shape broadcast_shapes(const Shape& a, const Shape& b);

/// Strides that let a tensor of (old_shape, old_strides) be viewed as new_shape without a copy,
/// or an empty optional-like result (`ok == false`) when the memory layout does not allow it.
struct ViewStrides {
    bool ok;
    Strides strides;
};
ViewStrides view_strides(const Shape& old_shape, const Strides& old_strides, const Shape& new_shape);

}  // namespace tinyamp
