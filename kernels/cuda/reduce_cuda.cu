// CUDA row reductions: one block per row (a grid-stride loop over rows), each thread summing a
// strided part of the row, then a shared-memory tree. Small rows waste threads, which is fine
// for what tinyamp reduces (loss rows, bias gradients).
#include "kernels/cuda/reduce_cuda.h"

#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/device_math.cuh"

namespace tinyamp::kernels::cuda {
namespace {

using detail::global_index;
using detail::grid_stride;
using detail::load;
using detail::store;

constexpr int kThreads = 256;  // a power of two: the tree halves it

template <class T> using acc_t = detail::compute_t<T>;

unsigned row_blocks(std::int64_t rows) { return unsigned(rows < 65535 * 8 ? rows : 65535 * 8); }

template <class In, class Out>
__global__ void sum_rows_kernel(const In* x, std::int64_t rows, std::int64_t cols, Out* out, double scale)
{
    using Acc = acc_t<In>;
    __shared__ Acc partial[kThreads];
    for (std::int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
        const In* row = x + r * cols;
        Acc total = 0;
        for (std::int64_t c = threadIdx.x; c < cols; c += blockDim.x) total += Acc(load(row[c]));
        partial[threadIdx.x] = total;
        __syncthreads();
        for (int half = kThreads / 2; half > 0; half /= 2) {
            if (int(threadIdx.x) < half) partial[threadIdx.x] += partial[threadIdx.x + half];
            __syncthreads();
        }
        if (threadIdx.x == 0) {
            const Acc sum = partial[0];
            // As on the CPU: a scaled sum (a mean) is scaled in f64, then rounded into Out.
            if (scale == 1.0) out[r] = store<Out>(sum);
            else out[r] = store<Out>(detail::compute_t<Out>(double(sum) * scale));
        }
        __syncthreads();  // partial[] is reused by the next row
    }
}

// Keeps the larger (or the NaN, or the earlier position on a tie) of two candidates.
template <class C>
__device__ __forceinline__ bool better(C v, std::int64_t i, C best, std::int64_t best_i)
{
    const bool v_nan = v != v, best_nan = best != best;
    if (v_nan || best_nan) return v_nan && (!best_nan || i < best_i);
    return v > best || (v == best && i < best_i);
}

template <class T>
__global__ void max_rows_kernel(const T* x, std::int64_t rows, std::int64_t cols, T* values, std::int64_t* indices)
{
    using C = detail::compute_t<T>;
    __shared__ C best_value[kThreads];
    __shared__ std::int64_t best_index[kThreads];
    for (std::int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
        const T* row = x + r * cols;
        C best = 0;
        std::int64_t at = -1;
        for (std::int64_t c = threadIdx.x; c < cols; c += blockDim.x) {
            const C v = load(row[c]);
            if (at < 0 || better(v, c, best, at)) {
                best = v;
                at = c;
            }
        }
        best_value[threadIdx.x] = best;
        best_index[threadIdx.x] = at;
        __syncthreads();
        for (int half = kThreads / 2; half > 0; half /= 2) {
            if (int(threadIdx.x) < half) {
                const std::int64_t other = best_index[threadIdx.x + half];
                if (other >= 0 && (best_index[threadIdx.x] < 0 ||
                                   better(best_value[threadIdx.x + half], other, best_value[threadIdx.x], best_index[threadIdx.x]))) {
                    best_value[threadIdx.x] = best_value[threadIdx.x + half];
                    best_index[threadIdx.x] = other;
                }
            }
            __syncthreads();
        }
        if (threadIdx.x == 0) {
            if (values) values[r] = row[best_index[0]];
            if (indices) indices[r] = best_index[0];
        }
        __syncthreads();
    }
}

template <class Word, bool Put>
__global__ void along_rows_kernel(const Word* src, std::int64_t rows, std::int64_t cols, const std::int64_t* index, Word* dst)
{
    for (std::int64_t r = global_index(); r < rows; r += grid_stride()) {
        if constexpr (Put) dst[r * cols + index[r]] = src[r];
        else dst[r] = src[r * cols + index[r]];
    }
}

template <bool Put>
void along_rows(const void* src, std::int64_t element_size, std::int64_t rows, std::int64_t cols, const std::int64_t* index, void* dst,
                int device)
{
    if (rows == 0) return;
    detail::use_device(device);
    const unsigned blocks = detail::blocks_for(rows, kThreads);
    switch (element_size) {
    case 1: along_rows_kernel<std::uint8_t, Put><<<blocks, kThreads>>>(static_cast<const std::uint8_t*>(src), rows, cols, index, static_cast<std::uint8_t*>(dst)); break;
    case 2: along_rows_kernel<std::uint16_t, Put><<<blocks, kThreads>>>(static_cast<const std::uint16_t*>(src), rows, cols, index, static_cast<std::uint16_t*>(dst)); break;
    case 4: along_rows_kernel<std::uint32_t, Put><<<blocks, kThreads>>>(static_cast<const std::uint32_t*>(src), rows, cols, index, static_cast<std::uint32_t*>(dst)); break;
    case 8: along_rows_kernel<std::uint64_t, Put><<<blocks, kThreads>>>(static_cast<const std::uint64_t*>(src), rows, cols, index, static_cast<std::uint64_t*>(dst)); break;
    default: TINYAMP_FAIL(value, "CUDA take/put along rows: element size ", element_size, " is not 1, 2, 4 or 8 bytes");
    }
    detail::check_launch(Put ? "put_along_rows kernel" : "take_along_rows kernel");
}

}  // namespace

void sum_rows(const void* x, DType dtype, std::int64_t rows, std::int64_t cols, void* out, DType out_dtype, double scale, int device)
{
    if (rows == 0) return;
    detail::use_device(device);
    detail::visit_device_dtype(dtype, [&](auto in_tag) {
        using In = decltype(in_tag);
        detail::visit_device_dtype(out_dtype, [&](auto out_tag) {
            using Out = decltype(out_tag);
            sum_rows_kernel<In, Out><<<row_blocks(rows), kThreads>>>(static_cast<const In*>(x), rows, cols, static_cast<Out*>(out), scale);
        });
    });
    detail::check_launch("sum_rows kernel");
}

void max_rows(const void* x, DType dtype, std::int64_t rows, std::int64_t cols, void* values, std::int64_t* indices, int device)
{
    TINYAMP_CHECK(cols > 0, shape, "max over an empty dimension has no answer");
    if (rows == 0) return;
    detail::use_device(device);
    detail::visit_device_dtype(dtype, [&](auto tag) {
        using T = decltype(tag);
        max_rows_kernel<T><<<row_blocks(rows), kThreads>>>(static_cast<const T*>(x), rows, cols, static_cast<T*>(values), indices);
    });
    detail::check_launch("max_rows kernel");
}

void take_along_rows(const void* x, std::int64_t element_size, std::int64_t rows, std::int64_t cols, const std::int64_t* index, void* out,
                     int device)
{
    along_rows<false>(x, element_size, rows, cols, index, out, device);
}

void put_along_rows(const void* src, std::int64_t element_size, std::int64_t rows, std::int64_t cols, const std::int64_t* index, void* dst,
                    int device)
{
    along_rows<true>(src, element_size, rows, cols, index, dst, device);
}

}  // namespace tinyamp::kernels::cuda
