#pragma once
// The two CUDA kernels a GradScaler needs, as PyTorch has them (aten/src/ATen/native/cuda/
// AmpKernels.cu). Everything stays on the device, so a training step never waits for the GPU
// between gradients: the host reads found_inf once, when it must decide whether to step.

#include <cstdint>
#include <vector>

#include "tinyamp/values/dtype.h"

namespace tinyamp::kernels::cuda {

/// One gradient: n contiguous elements of an f64, f32, f16 or bf16 buffer on the device.
struct GradBuffer {
    void* data;
    DType dtype;
    std::int64_t n;
};

/// For each grad: if any element is inf or NaN, writes 1.0f into *found_inf (never writes 0);
/// then multiplies every element by *inv_scale in f32 (f64 for f64 grads) and rounds once into
/// the grad's dtype (PyTorch's _amp_foreach_non_finite_check_and_unscale_). found_inf and
/// inv_scale are one f32 each on `device`. When *inv_scale is 1 the multiply leaves the values
/// as they are.
void amp_foreach_non_finite_check_and_unscale_(const std::vector<GradBuffer>& grads, float* found_inf, const float* inv_scale, int device);

/// PyTorch's _amp_update_scale_ on one f32 scale, one i64 growth tracker and one f32 found_inf,
/// all on `device`: on inf, scale *= backoff and tracker = 0; else tracker + 1, and when that
/// reaches growth_interval, scale *= growth (kept only if finite) and tracker = 0.
void amp_update_scale_(float* scale, std::int64_t* growth_tracker, const float* found_inf, double growth_factor, double backoff_factor,
                       std::int64_t growth_interval, int device);

}  // namespace tinyamp::kernels::cuda
