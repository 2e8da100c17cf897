// vector_exp.h's loop, once per tier. Compiled with -ffp-contract=off and -fno-trapping-math, as
// gelu_kernel.cpp and for the same reasons (the same bits on every tier; selects vectorized).
#include "kernels/cpu/vector_exp.h"

#include <cmath>

#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/erf_approx.h"

namespace tinyamp::kernels::cpu {
namespace {

#if defined(__x86_64__)
[[gnu::always_inline]] inline void exp_loop(const float* x, float shift, float* y, std::int64_t n)
{
    for (std::int64_t j = 0; j < n; ++j) {
        const float d = x[j] - shift;
        y[j] = approx::exp_nonpositive_f32(d > 0.0f ? 0.0f : d);  // NaN stays NaN
    }
}

__attribute__((target("avx2,fma"))) void exp_avx2(const float* x, float shift, float* y, std::int64_t n) { exp_loop(x, shift, y, n); }
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,fma"))) void exp_avx512(const float* x, float shift, float* y, std::int64_t n)
{
    exp_loop(x, shift, y, n);
}
#endif

}  // namespace

void exp_shifted(const float* x, float shift, float* y, std::int64_t n)
{
#if defined(__x86_64__)
    static const bool avx512 = cpu_features().avx512f && cpu_features().fma, avx2 = cpu_features().avx2 && cpu_features().fma;
    if (avx512) return exp_avx512(x, shift, y, n);
    if (avx2) return exp_avx2(x, shift, y, n);
#endif
    for (std::int64_t j = 0; j < n; ++j) y[j] = std::exp(std::fmin(x[j] - shift, 0.0f));  // fmaf would be a libm call here
}

}  // namespace tinyamp::kernels::cpu
