// CUDA gather/scatter of strided views: each thread turns its flat (row-major) index into
// coordinates, then into the view's element offset. Elements move as raw bytes of their size.
#include "kernels/cuda/strided_copy_cuda.h"

#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/device_math.cuh"

namespace tinyamp::kernels::cuda {
namespace {

using detail::global_index;
using detail::grid_stride;

// Passed by value to the kernel (it lands in constant parameter space).
struct ViewLayout {
    int ndim;
    std::int64_t shape[kMaxDims];
    std::int64_t strides[kMaxDims];
};

__device__ __forceinline__ std::int64_t view_offset(const ViewLayout& v, std::int64_t flat)
{
    std::int64_t offset = 0;
    for (int d = v.ndim - 1; d >= 0; --d) {
        const std::int64_t size = v.shape[d];
        offset += (flat % size) * v.strides[d];
        flat /= size;
    }
    return offset;
}

// Word is an unsigned integer of the element's size, so any dtype moves without conversion.
template <class Word, bool Scatter>
__global__ void strided_kernel(const Word* src, Word* dst, ViewLayout v, std::int64_t n)
{
    for (std::int64_t i = global_index(); i < n; i += grid_stride()) {
        if constexpr (Scatter) dst[view_offset(v, i)] = src[i];
        else dst[i] = src[view_offset(v, i)];
    }
}

template <bool Scatter>
void run(const void* src, const std::int64_t* shape, const std::int64_t* strides, int ndim, std::int64_t element_size, void* dst,
         int device)
{
    TINYAMP_CHECK(ndim <= kMaxDims, shape, "CUDA strided copy supports up to ", kMaxDims, " dimensions, got ", ndim,
                  "; reshape the tensor to fewer dimensions first");
    ViewLayout v{};
    v.ndim = ndim;
    std::int64_t n = 1;
    for (int d = 0; d < ndim; ++d) {
        v.shape[d] = shape[d];
        v.strides[d] = strides[d];
        n *= shape[d];
    }
    if (n == 0) return;
    detail::use_device(device);
    constexpr int threads = 256;
    const unsigned blocks = detail::blocks_for(n, threads);
    switch (element_size) {
    case 1: strided_kernel<std::uint8_t, Scatter><<<blocks, threads>>>(static_cast<const std::uint8_t*>(src), static_cast<std::uint8_t*>(dst), v, n); break;
    case 2: strided_kernel<std::uint16_t, Scatter><<<blocks, threads>>>(static_cast<const std::uint16_t*>(src), static_cast<std::uint16_t*>(dst), v, n); break;
    case 4: strided_kernel<std::uint32_t, Scatter><<<blocks, threads>>>(static_cast<const std::uint32_t*>(src), static_cast<std::uint32_t*>(dst), v, n); break;
    case 8: strided_kernel<std::uint64_t, Scatter><<<blocks, threads>>>(static_cast<const std::uint64_t*>(src), static_cast<std::uint64_t*>(dst), v, n); break;
    default: TINYAMP_FAIL(value, "CUDA strided copy: element size ", element_size, " is not 1, 2, 4 or 8 bytes");
    }
    detail::check_launch(Scatter ? "strided_scatter kernel" : "strided_copy kernel");
}

}  // namespace

void strided_copy(const void* src, const std::int64_t* shape, const std::int64_t* strides, int ndim, std::int64_t element_size, void* dst,
                  int device)
{
    run<false>(src, shape, strides, ndim, element_size, dst, device);
}

void strided_scatter(const void* src, const std::int64_t* shape, const std::int64_t* strides, int ndim, std::int64_t element_size,
                     void* dst, int device)
{
    run<true>(src, shape, strides, ndim, element_size, dst, device);
}

}  // namespace tinyamp::kernels::cuda
