#pragma once
// CUDA gather and scatter between a strided view and a contiguous buffer, both on one device
// (what Tensor::contiguous and the gradient of a slice need), so views of CUDA tensors stay on
// the device. Shape and strides are host arrays (in elements); up to kMaxDims dimensions.

#include <cstdint>

namespace tinyamp::kernels::cuda {

inline constexpr int kMaxDims = 10;

/// dst (contiguous, row-major) = the elements of the view (shape, strides) that starts at src.
void strided_copy(const void* src, const std::int64_t* shape, const std::int64_t* strides, int ndim, std::int64_t element_size,
                  void* dst, int device);

/// The reverse: writes contiguous src into the view (shape, strides) starting at dst. The view
/// must not overlap itself (no stride-0 dimension of size > 1).
void strided_scatter(const void* src, const std::int64_t* shape, const std::int64_t* strides, int ndim, std::int64_t element_size,
                     void* dst, int device);

}  // namespace tinyamp::kernels::cuda
