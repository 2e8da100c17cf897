// The optimizers' step as one CUDA kernel per parameter (kernels/cuda/optimizer_step_cuda.h). Built
// with --fmad=false: the rule fuses exactly the multiply-adds PyTorch fuses (std::fma), and nvcc
// must not fuse others, or the GPU's weights would drift from the CPU's in the last bit.
#include "kernels/cuda/optimizer_step_cuda.h"

#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/device_math.cuh"

namespace tinyamp::kernels::cuda {
namespace {

using detail::global_index;
using detail::grid_stride;

template <class Rule, class T>
__global__ void optimizer_step_kernel(Rule rule, T* w, const T* g, T* s0, T* s1, std::int64_t n)
{
    for (std::int64_t i = global_index(); i < n; i += grid_stride()) {
        T unused0 = 0, unused1 = 0;  // what a state the rule does not use reads and writes
        rule(w[i], g[i], s0 ? s0[i] : unused0, s1 ? s1[i] : unused1);
    }
}

template <class Rule, class T>
void launch(const Rule& rule, T* w, const T* g, T* s0, T* s1, std::int64_t n, int device)
{
    if (n == 0) return;
    detail::use_device(device);
    constexpr int threads = 256;
    optimizer_step_kernel<<<detail::blocks_for(n, threads), threads>>>(rule, w, g, s0, s1, n);
    detail::check_launch("optimizer step kernel");
}

}  // namespace

void optimizer_step(const SgdRule<float>& rule, float* w, const float* g, float* s0, float* s1, std::int64_t n, int device)
{
    launch(rule, w, g, s0, s1, n, device);
}
void optimizer_step(const SgdRule<double>& rule, double* w, const double* g, double* s0, double* s1, std::int64_t n, int device)
{
    launch(rule, w, g, s0, s1, n, device);
}
void optimizer_step(const AdamRule<float>& rule, float* w, const float* g, float* s0, float* s1, std::int64_t n, int device)
{
    launch(rule, w, g, s0, s1, n, device);
}
void optimizer_step(const AdamRule<double>& rule, double* w, const double* g, double* s0, double* s1, std::int64_t n, int device)
{
    launch(rule, w, g, s0, s1, n, device);
}

}  // namespace tinyamp::kernels::cuda
