// CUDA per-sample losses (one block per sample for cross entropy; one thread per sample for the
// gathers) and the one-hot masks their backward uses.
#include "kernels/cuda/loss_cuda.h"

#include "kernels/cuda/block_reduce.cuh"
#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/device_math.cuh"

namespace tinyamp::kernels::cuda {
namespace {

using detail::global_index;
using detail::grid_stride;
using detail::kRowThreads;
using detail::load;

template <class T>
__global__ void cross_entropy_kernel(const T* x, std::int64_t n, std::int64_t classes, const std::int64_t* labels, std::int64_t ignore,
                                     detail::compute_t<T>* losses)
{
    using C = detail::compute_t<T>;
    __shared__ C scratch[kRowThreads];
    for (std::int64_t i = blockIdx.x; i < n; i += gridDim.x) {
        const std::int64_t label = labels[i];  // the same for the whole block: no divergence below
        if (label == ignore) {
            if (threadIdx.x == 0) losses[i] = 0;
            continue;
        }
        const T* row = x + i * classes;
        C m = -INFINITY;
        for (std::int64_t j = threadIdx.x; j < classes; j += blockDim.x) {
            const C v = load(row[j]);
            if (v != v || v > m) m = v;
        }
        m = detail::block_max(m, scratch);
        C total = 0;
        for (std::int64_t j = threadIdx.x; j < classes; j += blockDim.x) total += exp(load(row[j]) - m);
        total = detail::block_sum(total, scratch);
        if (threadIdx.x == 0) losses[i] = log(total) - (load(row[label]) - m);
    }
}

template <class T>
__global__ void nll_kernel(const T* x, std::int64_t n, std::int64_t classes, const std::int64_t* labels, std::int64_t ignore,
                           detail::compute_t<T>* losses)
{
    for (std::int64_t i = global_index(); i < n; i += grid_stride())
        losses[i] = labels[i] == ignore ? detail::compute_t<T>(0) : -load(x[i * classes + labels[i]]);
}

template <class C>
__global__ void masks_kernel(const std::int64_t* labels, std::int64_t n, std::int64_t classes, std::int64_t ignore, C w, C* onehot, C* weight)
{
    for (std::int64_t i = global_index(); i < n; i += grid_stride()) {
        if (labels[i] == ignore) continue;
        onehot[i * classes + labels[i]] = C(1);
        weight[i] = w;
    }
}

unsigned sample_blocks(std::int64_t n) { return unsigned(n < 65535 * 8 ? n : 65535 * 8); }

}  // namespace

void cross_entropy_rows(const void* x, DType dtype, std::int64_t n, std::int64_t classes, const std::int64_t* labels,
                        std::int64_t ignore_index, void* losses, int device)
{
    if (n == 0) return;
    detail::use_device(device);
    detail::visit_device_float(dtype, "cross_entropy", [&](auto tag) {
        using T = decltype(tag);
        cross_entropy_kernel<T><<<sample_blocks(n), kRowThreads>>>(static_cast<const T*>(x), n, classes, labels, ignore_index,
                                                                   static_cast<detail::compute_t<T>*>(losses));
    });
    detail::check_launch("cross_entropy kernel");
}

void nll_rows(const void* x, DType dtype, std::int64_t n, std::int64_t classes, const std::int64_t* labels, std::int64_t ignore_index,
              void* losses, int device)
{
    if (n == 0) return;
    detail::use_device(device);
    detail::visit_device_float(dtype, "nll_loss", [&](auto tag) {
        using T = decltype(tag);
        nll_kernel<T><<<detail::blocks_for(n, 256), 256>>>(static_cast<const T*>(x), n, classes, labels, ignore_index,
                                                           static_cast<detail::compute_t<T>*>(losses));
    });
    detail::check_launch("nll kernel");
}

void target_masks(const std::int64_t* labels, std::int64_t n, std::int64_t classes, std::int64_t ignore_index, double w, DType dtype,
                  void* onehot, void* weight, int device)
{
    if (n == 0) return;
    detail::use_device(device);
    if (dtype == DType::f64)
        masks_kernel<double><<<detail::blocks_for(n, 256), 256>>>(labels, n, classes, ignore_index, w, static_cast<double*>(onehot),
                                                                  static_cast<double*>(weight));
    else if (dtype == DType::f32)
        masks_kernel<float><<<detail::blocks_for(n, 256), 256>>>(labels, n, classes, ignore_index, float(w), static_cast<float*>(onehot),
                                                                 static_cast<float*>(weight));
    else
        TINYAMP_FAIL(dtype, "target masks on CUDA are f32 or f64, got ", dtype_name(dtype));
    detail::check_launch("target masks kernel");
}

}  // namespace tinyamp::kernels::cuda
