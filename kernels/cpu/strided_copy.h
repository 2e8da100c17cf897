#pragma once
// Gathers a strided view into a contiguous buffer (what Tensor::contiguous needs).

#include <cstdint>

namespace tinyamp::kernels::cpu {

/// Copies the elements of a view (shape, strides in elements, ndim dims) starting at `src` into
/// `dst` in row-major order. Element size in bytes; rows with stride 1 are copied whole.
void strided_copy(const void* src, const std::int64_t* shape, const std::int64_t* strides, int ndim,
                  std::int64_t element_size, void* dst);

}  // namespace tinyamp::kernels::cpu
