#pragma once
// Eight bf16 values widened to f32 in one AVX2 register, exactly as half_bits.h widens one: the
// 16 bits move to the top half, and a NaN gets the quiet bit. Shared by the bulk conversion
// (convert_x86.cpp) and GEMM packing's widening transpose (panel_transpose.cpp). x86-64 only; the
// caller must be compiled for AVX2 (target attribute) and the CPU must have it.
#if defined(__x86_64__)
#include "kernels/cpu/gemm_intrinsics.h"
#include "tinyamp/values/half.h"

namespace tinyamp::kernels::cpu {

__attribute__((target("avx2"), always_inline)) inline __m256 widen_bf16x8(const BFloat16* from)
{
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from));
    const __m256i bits = _mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16);
    const __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(bits, _mm256_set1_epi32(0x7fffffff)), _mm256_set1_epi32(0x7f800000));
    return _mm256_castsi256_ps(_mm256_or_si256(bits, _mm256_and_si256(nan, _mm256_set1_epi32(0x00400000))));
}

}  // namespace tinyamp::kernels::cpu
#endif
