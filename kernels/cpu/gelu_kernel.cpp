// GELU's loops (gelu_kernel.h). Compiled with -ffp-contract=off (kernels/CMakeLists.txt): the only
// fused multiply-adds are the explicit fmaf calls of erf_approx.h and below, so every tier gives
// the same bits on AVX2 and AVX-512. And with -fno-trapping-math: without it GCC computes both sides of a select only
// where it can mask them (AVX-512), and the AVX2 loop stays scalar.
#include "kernels/cpu/gelu_kernel.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/elementwise_loops.h"
#include "kernels/cpu/erf_approx.h"
#include "kernels/cpu/worker_pool.h"
#include "tinyamp/support/parallel.h"

namespace tinyamp::kernels::cpu {
namespace {

// Without FMA (a CPU before AVX2, WebAssembly) fmaf is a libm routine of some 30 ns: there the
// loops compute the definitions in double instead, as fast as before and more accurate.
void forward_portable(const float* x, float* y, std::int64_t n)
{
    for (std::int64_t i = 0; i < n; ++i) y[i] = float(reference::gelu(x[i]));
}
void backward_portable(const float* dy, const float* x, float* dx, std::int64_t n)
{
    for (std::int64_t i = 0; i < n; ++i) dx[i] = float(reference::gelu_backward(dy[i], x[i]));
}

#if defined(__x86_64__)  // the fast loops: x86 CPUs with FMA
constexpr float kSqrtHalf = float(std::numbers::sqrt2 / 2);
constexpr float kInvSqrt2Pi = float(0.39894228040143267794);  // 1 / sqrt(2 pi)

[[gnu::always_inline]] inline float gelu_one(float x) { return x * 0.5f * (1.0f + approx::erf_f32(x * kSqrtHalf)); }

[[gnu::always_inline]] inline float gelu_backward_one(float dy, float x)
{
    const float cdf = 0.5f * (1.0f + approx::erf_f32(x * kSqrtHalf));
    const float half_square = 0.5f * x * x;
    // Past x^2 / 2 = 87, phi(x) < 1e-38: x phi(x) is 0 (and inf * 0 would be NaN at x = +-inf).
    const float density = approx::exp_nonpositive_f32(-half_square) * kInvSqrt2Pi;  // computed always: a select, not a branch
    const float pdf = half_square < 87.0f ? density : 0.0f;
    return dy * __builtin_fmaf(x, pdf, cdf);
}

[[gnu::always_inline]] inline void forward_loop(const float* x, float* y, std::int64_t n)
{
    for (std::int64_t i = 0; i < n; ++i) y[i] = gelu_one(x[i]);
}

[[gnu::always_inline]] inline void backward_loop(const float* dy, const float* x, float* dx, std::int64_t n)
{
    for (std::int64_t i = 0; i < n; ++i) dx[i] = gelu_backward_one(dy[i], x[i]);
}

__attribute__((target("avx2,fma"))) void forward_avx2(const float* x, float* y, std::int64_t n) { forward_loop(x, y, n); }
__attribute__((target("avx2,fma"))) void backward_avx2(const float* dy, const float* x, float* dx, std::int64_t n)
{
    backward_loop(dy, x, dx, n);
}
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,fma"))) void forward_avx512(const float* x, float* y, std::int64_t n)
{
    forward_loop(x, y, n);
}
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,fma"))) void backward_avx512(const float* dy, const float* x, float* dx,
                                                                                        std::int64_t n)
{
    backward_loop(dy, x, dx, n);
}
#endif

// Split between the threads as every elementwise kernel is (worker_pool.h's grain).
template <class Run>
void in_parts(std::int64_t n, Run&& run)
{
    run_ranges(n, kElementwiseGrain, get_num_threads(), run);
}

// Widens 16-bit arrays a block at a time into f32 buffers on the stack, computes there, narrows.
constexpr std::int64_t kBlock = 512;

using detail::narrow;  // elementwise_loops.h's vector conversions of a block
using detail::widen;

template <class T>
void forward_16bit(const T* x, T* y, std::int64_t n)
{
    const GeluTier tier = gelu_tier();
    in_parts(n, [&](std::int64_t begin, std::int64_t end) {
        float in[kBlock], out[kBlock];
        for (std::int64_t i = begin; i < end; i += kBlock) {
            const std::int64_t m = std::min(kBlock, end - i);
            widen(x + i, in, m);
            gelu_forward_on(tier, in, out, m);
            narrow(out, y + i, m);
        }
    });
}

template <class T>
void backward_16bit(const T* dy, const T* x, T* dx, std::int64_t n)
{
    const GeluTier tier = gelu_tier();
    in_parts(n, [&](std::int64_t begin, std::int64_t end) {
        float g[kBlock], in[kBlock], out[kBlock];
        for (std::int64_t i = begin; i < end; i += kBlock) {
            const std::int64_t m = std::min(kBlock, end - i);
            widen(dy + i, g, m);
            widen(x + i, in, m);
            gelu_backward_on(tier, g, in, out, m);
            narrow(out, dx + i, m);
        }
    });
}

}  // namespace

GeluTier gelu_tier()
{
    const CpuFeatures& f = cpu_features();
    if (f.avx512f && f.fma) return GeluTier::avx512;
    if (f.avx2 && f.fma) return GeluTier::avx2_fma;
    return GeluTier::portable;
}

void gelu_forward_on(GeluTier tier, const float* x, float* y, std::int64_t n)
{
#if defined(__x86_64__)
    if (tier == GeluTier::avx512) return forward_avx512(x, y, n);
    if (tier == GeluTier::avx2_fma) return forward_avx2(x, y, n);
#endif
    (void)tier;
    forward_portable(x, y, n);
}

void gelu_backward_on(GeluTier tier, const float* dy, const float* x, float* dx, std::int64_t n)
{
#if defined(__x86_64__)
    if (tier == GeluTier::avx512) return backward_avx512(dy, x, dx, n);
    if (tier == GeluTier::avx2_fma) return backward_avx2(dy, x, dx, n);
#endif
    (void)tier;
    backward_portable(dy, x, dx, n);
}

void gelu_forward(const float* x, float* y, std::int64_t n)
{
    const GeluTier tier = gelu_tier();
    in_parts(n, [&](std::int64_t begin, std::int64_t end) { gelu_forward_on(tier, x + begin, y + begin, end - begin); });
}
void gelu_forward(const Half* x, Half* y, std::int64_t n) { forward_16bit(x, y, n); }
void gelu_forward(const BFloat16* x, BFloat16* y, std::int64_t n) { forward_16bit(x, y, n); }

void gelu_backward(const float* dy, const float* x, float* dx, std::int64_t n)
{
    const GeluTier tier = gelu_tier();
    in_parts(n, [&](std::int64_t begin, std::int64_t end) { gelu_backward_on(tier, dy + begin, x + begin, dx + begin, end - begin); });
}
void gelu_backward(const Half* dy, const Half* x, Half* dx, std::int64_t n) { backward_16bit(dy, x, dx, n); }
void gelu_backward(const BFloat16* dy, const BFloat16* x, BFloat16* dx, std::int64_t n) { backward_16bit(dy, x, dx, n); }

namespace reference {

double gelu(double x) { return x * 0.5 * (1.0 + std::erf(x * (std::numbers::sqrt2 / 2))); }

double gelu_backward(double dy, double x)
{
    const double cdf = 0.5 * (1.0 + std::erf(x * (std::numbers::sqrt2 / 2)));
    const double pdf = std::exp(-0.5 * x * x) / std::sqrt(2 * std::numbers::pi);
    return dy * (cdf + x * pdf);  // NaN at x = +-inf (inf * 0), as PyTorch's
}

}  // namespace reference

}  // namespace tinyamp::kernels::cpu
