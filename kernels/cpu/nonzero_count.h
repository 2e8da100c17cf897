#pragma once
// torch.count_nonzero's loop: how many elements of an array are not zero. A float counts as zero
// when it is +0 or -0 (x != 0 is false); NaN counts as nonzero, as in PyTorch. The float types are
// read as their bits with the sign shifted out, so the loop is integer work that the compiler
// vectorizes: compiled for AVX-512 and AVX2 beside the portable build, the best tier chosen at run
// time (cpu_features()). Arrays of 2^16 elements or more are split between the threads
// (worker_pool.h's grain). reference:: is the plain `x != 0` loop the fast one is tested against.

#include <cstdint>

#include "tinyamp/values/half.h"

namespace tinyamp::kernels::cpu {

/// The instruction sets the counting loop is compiled for (tests reach each one).
enum class CountTier { portable, avx2, avx512 };

/// The best tier this CPU has (cpu_features(), so TINYAMP_CPU caps it).
CountTier count_tier();

/// How many of x[0..n) are not zero.
std::int64_t count_nonzero(const double* x, std::int64_t n);
std::int64_t count_nonzero(const float* x, std::int64_t n);
std::int64_t count_nonzero(const Half* x, std::int64_t n);
std::int64_t count_nonzero(const BFloat16* x, std::int64_t n);
std::int64_t count_nonzero(const std::int64_t* x, std::int64_t n);
std::int64_t count_nonzero(const bool* x, std::int64_t n);

/// The f32 loop on one thread and one tier (a tier the CPU lacks must not be asked for).
std::int64_t count_nonzero_on(CountTier tier, const float* x, std::int64_t n);

namespace reference {
/// x[i] != 0 counted one element at a time (each element widened to double, exactly).
template <class T>
std::int64_t count_nonzero(const T* x, std::int64_t n)
{
    std::int64_t count = 0;
    for (std::int64_t i = 0; i < n; ++i) count += (double(x[i]) != 0.0);
    return count;
}
}  // namespace reference

}  // namespace tinyamp::kernels::cpu
