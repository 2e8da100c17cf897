#pragma once
// GELU with erf (PyTorch's approximate='none'), forward and backward, each in one pass over
// memory: y = x Phi(x) and dx = dy (Phi(x) + x phi(x)), Phi(x) = (1 + erf(x / sqrt 2)) / 2,
// phi(x) = e^(-x^2 / 2) / sqrt(2 pi). f16 and bf16 are widened to f32 a block at a time, computed
// in f32 and rounded once when stored, as PyTorch's CPU kernel does. erf and exp are erf_approx.h's
// (within 1.2 ulp and 1.03 ulp); the loop is compiled for AVX-512 and for AVX2 + FMA, the best the
// CPU has chosen at run time, both giving the same bits. A CPU without FMA (and WebAssembly) runs
// the reference in double instead, rounded once. Arrays of 2^16 elements or more are split
// between the threads (worker_pool.h).
//
// reference:: is the plain statement, in double with libm's erf and exp, rounded once: what the
// fast versions are tested against.

#include <cstdint>

#include "tinyamp/values/half.h"

namespace tinyamp::kernels::cpu {

/// The instruction sets the GELU loop is compiled for (tests reach each one).
enum class GeluTier { portable, avx2_fma, avx512 };

/// The best tier this CPU has (cpu_features(), so TINYAMP_CPU caps it).
GeluTier gelu_tier();

/// y[i] = gelu(x[i]), i < n.
void gelu_forward(const float* x, float* y, std::int64_t n);
void gelu_forward(const Half* x, Half* y, std::int64_t n);
void gelu_forward(const BFloat16* x, BFloat16* y, std::int64_t n);

/// dx[i] = dy[i] * gelu'(x[i]), i < n.
void gelu_backward(const float* dy, const float* x, float* dx, std::int64_t n);
void gelu_backward(const Half* dy, const Half* x, Half* dx, std::int64_t n);
void gelu_backward(const BFloat16* dy, const BFloat16* x, BFloat16* dx, std::int64_t n);

/// The f32 loops on one thread and one tier (a tier the CPU lacks must not be asked for; portable
/// is the reference, rounded once).
void gelu_forward_on(GeluTier tier, const float* x, float* y, std::int64_t n);
void gelu_backward_on(GeluTier tier, const float* dy, const float* x, float* dx, std::int64_t n);

namespace reference {
/// gelu and its derivative times dy in double with std::erf and std::exp: the definitions.
double gelu(double x);
double gelu_backward(double dy, double x);
}  // namespace reference

}  // namespace tinyamp::kernels::cpu
