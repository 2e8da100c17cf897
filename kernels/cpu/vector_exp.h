#pragma once
// e^(x - shift) over an array, for x <= shift (the softmax's exp after subtracting the row's max,
// or its log-sum-exp): erf_approx.h's exp_nonpositive_f32 (1.03 ulp) in a loop compiled for AVX-512
// and for AVX2 + FMA (the same bits), libm's exp on a CPU without FMA. Used by attention_kernel.h.

#include <cstdint>

namespace tinyamp::kernels::cpu {

/// y[j] = e^(min(x[j] - shift, 0)) for j < n (below -87, where e^x < 1.7e-38, it is e^-87; NaN
/// gives NaN); y may be x.
void exp_shifted(const float* x, float shift, float* y, std::int64_t n);

}  // namespace tinyamp::kernels::cpu
