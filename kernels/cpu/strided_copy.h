#pragma once
// Gathers a strided view into a contiguous buffer (what Tensor::contiguous needs), and scatters
// a contiguous buffer into a strided view (what the gradient of a slice needs).

#include <cstdint>

namespace tinyamp::kernels::cpu {

/// Copies the elements of a view (shape, strides in elements, ndim dims) starting at `src` into
/// `dst` in row-major order. Element size in bytes; rows with stride 1 are copied whole.
void strided_copy(const void* src, const std::int64_t* shape, const std::int64_t* strides, int ndim,
                  std::int64_t element_size, void* dst);

/// The reverse: writes contiguous `src` (row-major) into the strided view of `dst` described by
/// (shape, strides). The view must not overlap itself (no stride-0 dims).
void strided_scatter(const void* src, const std::int64_t* shape, const std::int64_t* strides, int ndim, std::int64_t element_size,
                     void* dst);

}  // namespace tinyamp::kernels::cpu
