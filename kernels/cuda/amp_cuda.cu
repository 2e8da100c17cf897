// The GradScaler's CUDA kernels. One launch per gradient (launches are asynchronous, so no host
// wait happens between them); PyTorch batches the list into fewer launches (multi_tensor_apply),
// which matters for hundreds of parameters, not for tinyamp's models.
#include "kernels/cuda/amp_cuda.h"

#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/device_math.cuh"

namespace tinyamp::kernels::cuda {
namespace {

using detail::global_index;
using detail::grid_stride;

template <class T>
__global__ void check_and_unscale_kernel(T* grad, std::int64_t n, float* found_inf, const float* inv_scale)
{
    // f32 math for f32/f16/bf16 grads, f64 for f64 grads (PyTorch's opmath_t): an f64 grad must
    // not be narrowed to f32 and back.
    using C = detail::compute_t<T>;
    const float scale = *inv_scale;
    for (std::int64_t i = global_index(); i < n; i += grid_stride()) {
        const C v = detail::load(grad[i]);
        if (!isfinite(v)) *found_inf = 1.0f;  // a plain store: every writer writes the same value
        if (scale != 1.0f) grad[i] = detail::store<T>(v * C(scale));
    }
}

__global__ void update_scale_kernel(float* scale, std::int64_t* growth_tracker, const float* found_inf, double growth_factor,
                                    double backoff_factor, std::int64_t growth_interval)
{
    if (*found_inf) {
        *scale = float(double(*scale) * backoff_factor);
        *growth_tracker = 0;
        return;
    }
    const std::int64_t successful = *growth_tracker + 1;  // incremented before the comparison, as in PyTorch
    if (successful == growth_interval) {
        const float grown = float(double(*scale) * growth_factor);
        if (isfinite(grown)) *scale = grown;  // never grow to inf
        *growth_tracker = 0;
    } else {
        *growth_tracker = successful;
    }
}

}  // namespace

void amp_foreach_non_finite_check_and_unscale_(const std::vector<GradBuffer>& grads, float* found_inf, const float* inv_scale, int device)
{
    detail::use_device(device);
    constexpr int threads = 256;
    for (const GradBuffer& g : grads) {
        if (g.n == 0) continue;
        const unsigned blocks = detail::blocks_for(g.n, threads);
        switch (g.dtype) {
        // f64 too: GradScaler::unscale_ sends every contiguous CUDA grad here, and PyTorch's CUDA
        // kernel takes double (without this case f64 parameters on a GPU could not be trained).
        case DType::f64: check_and_unscale_kernel<<<blocks, threads>>>(static_cast<double*>(g.data), g.n, found_inf, inv_scale); break;
        case DType::f32: check_and_unscale_kernel<<<blocks, threads>>>(static_cast<float*>(g.data), g.n, found_inf, inv_scale); break;
        case DType::f16: check_and_unscale_kernel<<<blocks, threads>>>(static_cast<__half*>(g.data), g.n, found_inf, inv_scale); break;
        case DType::bf16:
            check_and_unscale_kernel<<<blocks, threads>>>(static_cast<__nv_bfloat16*>(g.data), g.n, found_inf, inv_scale);
            break;
        default:
            TINYAMP_FAIL(dtype, "amp_foreach_non_finite_check_and_unscale_: gradients must be f64, f32, f16 or bf16, got ",
                         dtype_name(g.dtype));
        }
        detail::check_launch("amp non-finite check and unscale kernel");
    }
}

void amp_update_scale_(float* scale, std::int64_t* growth_tracker, const float* found_inf, double growth_factor, double backoff_factor,
                       std::int64_t growth_interval, int device)
{
    detail::use_device(device);
    update_scale_kernel<<<1, 1>>>(scale, growth_tracker, found_inf, growth_factor, backoff_factor, growth_interval);
    detail::check_launch("amp update scale kernel");
}

}  // namespace tinyamp::kernels::cuda
