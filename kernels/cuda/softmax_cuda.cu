// CUDA softmax / log-softmax lanes and layer norm rows: one block per lane (row), block-wide
// max and sum in shared memory. Numerically stable as on the CPU: exponents are x - max <= 0.
#include "kernels/cuda/softmax_cuda.h"

#include "kernels/cuda/block_reduce.cuh"
#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/device_math.cuh"

namespace tinyamp::kernels::cuda {
namespace {

using detail::kRowThreads;
using detail::load;
using detail::store;

unsigned lane_blocks(std::int64_t lanes) { return unsigned(lanes < 65535 * 8 ? lanes : 65535 * 8); }

template <class T>
__global__ void softmax_kernel(const T* x, T* y, std::int64_t outer, std::int64_t n, std::int64_t inner, bool log_probs)
{
    using C = detail::compute_t<T>;
    __shared__ C scratch[kRowThreads];
    for (std::int64_t lane = blockIdx.x; lane < outer * inner; lane += gridDim.x) {
        const std::int64_t o = lane / inner, i = lane % inner;
        const T* in = x + o * n * inner + i;
        T* out = y + o * n * inner + i;
        C m = -INFINITY;
        for (std::int64_t j = threadIdx.x; j < n; j += blockDim.x) {
            const C v = load(in[j * inner]);
            if (v != v || v > m) m = v;
        }
        m = detail::block_max(m, scratch);
        C total = 0;
        for (std::int64_t j = threadIdx.x; j < n; j += blockDim.x) total += exp(load(in[j * inner]) - m);
        total = detail::block_sum(total, scratch);
        if (log_probs) {
            const C log_total = log(total);
            for (std::int64_t j = threadIdx.x; j < n; j += blockDim.x) out[j * inner] = store<T>((load(in[j * inner]) - m) - log_total);
        } else {
            for (std::int64_t j = threadIdx.x; j < n; j += blockDim.x) out[j * inner] = store<T>(exp(load(in[j * inner]) - m) / total);
        }
    }
}

// Two passes over each row, as the CPU's group_moments: the mean, then squared deviations.
template <class T, class Acc>
__global__ void layer_norm_kernel(const T* x, std::int64_t rows, std::int64_t cols, Acc eps, const Acc* weight, const Acc* bias, T* y,
                                  Acc* mean_out, Acc* rstd_out)
{
    __shared__ Acc scratch[kRowThreads];
    for (std::int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
        const T* in = x + r * cols;
        Acc total = 0;
        for (std::int64_t c = threadIdx.x; c < cols; c += blockDim.x) total += Acc(load(in[c]));
        const Acc mean = detail::block_sum(total, scratch) / Acc(cols);
        Acc squares = 0;
        for (std::int64_t c = threadIdx.x; c < cols; c += blockDim.x) {
            const Acc d = Acc(load(in[c])) - mean;
            squares += d * d;
        }
        const Acc var = detail::block_sum(squares, scratch) / Acc(cols);
        const Acc rstd = Acc(1) / sqrt(var + eps);
        for (std::int64_t c = threadIdx.x; c < cols; c += blockDim.x) {
            Acc v = (Acc(load(in[c])) - mean) * rstd;
            if (weight) v *= weight[c];
            if (bias) v += bias[c];
            y[r * cols + c] = store<T>(v);
        }
        if (threadIdx.x == 0) {
            if (mean_out) mean_out[r] = mean;
            if (rstd_out) rstd_out[r] = rstd;
        }
    }
}

}  // namespace

void softmax_lanes(const void* x, void* y, DType dtype, std::int64_t outer, std::int64_t n, std::int64_t inner, bool log, int device)
{
    if (outer * inner == 0 || n == 0) return;
    detail::use_device(device);
    detail::visit_device_float(dtype, "softmax", [&](auto tag) {
        using T = decltype(tag);
        softmax_kernel<T><<<lane_blocks(outer * inner), kRowThreads>>>(static_cast<const T*>(x), static_cast<T*>(y), outer, n, inner, log);
    });
    detail::check_launch("softmax kernel");
}

void layer_norm_rows(const void* x, DType dtype, std::int64_t rows, std::int64_t cols, double eps, const void* weight, const void* bias,
                     DType acc_dtype, void* y, void* mean, void* rstd, int device)
{
    if (rows == 0 || cols == 0) return;
    TINYAMP_CHECK(acc_dtype == (dtype == DType::f64 ? DType::f64 : DType::f32), dtype, "layer_norm on CUDA accumulates in ",
                  dtype == DType::f64 ? "f64" : "f32", " for ", dtype_name(dtype), " input, but got ", dtype_name(acc_dtype));
    detail::use_device(device);
    detail::visit_device_float(dtype, "layer_norm", [&](auto tag) {
        using T = decltype(tag);
        using Acc = detail::compute_t<T>;
        layer_norm_kernel<T, Acc><<<lane_blocks(rows), kRowThreads>>>(static_cast<const T*>(x), rows, cols, Acc(eps),
                                                                      static_cast<const Acc*>(weight), static_cast<const Acc*>(bias),
                                                                      static_cast<T*>(y), static_cast<Acc*>(mean), static_cast<Acc*>(rstd));
    });
    detail::check_launch("layer_norm kernel");
}

}  // namespace tinyamp::kernels::cuda
