// Fast f32 <-> f16/bf16 conversions with x86 vector instructions. Each function is compiled for
// its instruction set with a target attribute (not a file-wide -m flag), so no other code in this
// file can pick up instructions the CPU may lack; callers check cpu_features() first.
//
// What the instructions do, as measured by tests/kernels/convert_hardware_test.cpp:
//  * vcvtps2ph (F16C), with the rounding immediate "to nearest": exact IEEE round to nearest
//    even, subnormal f16 results included; NaNs are quieted with their top payload bits kept.
//  * vcvtph2ps (F16C): exact.
//  * vcvtneps2bf16 (AVX-512 BF16): round to nearest even, but f32 subnormal inputs are flushed to
//    +-0 (the instruction behaves as if DAZ were set, whatever MXCSR says). tinyamp keeps them:
//    the few subnormal lanes are redone with the integer rounding trick below, so this path
//    gives exactly the reference's bits.
#include "kernels/cpu/convert.h"

#include "kernels/cpu/bf16_lanes.h"

#if defined(__x86_64__)
// GCC 12 reports "'__Y' may be used uninitialized" inside its own AVX-512 intrinsics, which use
// _mm512_undefined_epi32() on purpose (GCC bug 105593, fixed in GCC 13). Silenced for this file only.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ == 12
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#endif

namespace tinyamp::kernels::cpu {

#if defined(__x86_64__)

namespace f16c {

__attribute__((target("avx,f16c"))) void f32_to_f16(const float* src, Half* dst, std::int64_t n)
{
    std::int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), h);
    }
    bits::f32_to_f16(src + i, dst + i, n - i);  // the last few elements
}

__attribute__((target("avx,f16c"))) void f16_to_f32(const Half* src, float* dst, std::int64_t n)
{
    std::int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
        _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(h));
    }
    bits::f16_to_f32(src + i, dst + i, n - i);  // the last few elements
}

}  // namespace f16c

// bf16 on CPUs without AVX-512 BF16 (a Zen 1, a Zen 4 capped by TINYAMP_CPU=avx2): the
// reference's integer rounding on 8 lanes at a time, so autocast's casts and the widening of bf16
// operands are not a scalar loop there. Same bits as half_bits.h, NaN and subnormals included.
namespace avx2 {

__attribute__((target("avx2"))) void f32_to_bf16(const float* src, BFloat16* dst, std::int64_t n)
{
    const __m256i abs_mask = _mm256_set1_epi32(0x7fffffff);
    const __m256i inf_bits = _mm256_set1_epi32(0x7f800000);
    const __m256i round_bias = _mm256_set1_epi32(0x7fff);
    const __m256i one = _mm256_set1_epi32(1);
    const __m256i quiet_bit = _mm256_set1_epi32(0x0040);
    std::int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256i bits = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i));
        const __m256i top = _mm256_srli_epi32(bits, 16);
        // Round to nearest even: add 0x7fff plus the lowest kept bit, keep the top 16 bits.
        const __m256i rounded = _mm256_srli_epi32(_mm256_add_epi32(bits, _mm256_add_epi32(round_bias, _mm256_and_si256(top, one))), 16);
        // NaN (|bits| > inf's): the top half, made quiet.
        const __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(bits, abs_mask), inf_bits);
        const __m256i out = _mm256_blendv_epi8(rounded, _mm256_or_si256(top, quiet_bit), nan);
        // 8 lanes of 32 bits, each < 2^16, packed to 16 bits (packus works within 128-bit halves).
        const __m128i packed = _mm_packus_epi32(_mm256_castsi256_si128(out), _mm256_extracti128_si256(out, 1));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), packed);
    }
    bits::f32_to_bf16(src + i, dst + i, n - i);  // the last few elements
}

__attribute__((target("avx2"))) void bf16_to_f32(const BFloat16* src, float* dst, std::int64_t n)
{
    std::int64_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(dst + i, widen_bf16x8(src + i));
    bits::bf16_to_f32(src + i, dst + i, n - i);  // the last few elements
}

}  // namespace avx2

// The same integer rounding on 16 lanes, for CPUs with AVX-512 but not its BF16 instructions (an
// Intel Xeon whose hypervisor hides them, a Skylake or Ice Lake server).
namespace avx512 {

#define TINYAMP_AVX512_TARGET __attribute__((target("avx512f,avx512bw,avx512vl")))

TINYAMP_AVX512_TARGET void f32_to_bf16(const float* src, BFloat16* dst, std::int64_t n)
{
    const __m512i abs_mask = _mm512_set1_epi32(0x7fffffff);
    const __m512i inf_bits = _mm512_set1_epi32(0x7f800000);
    const __m512i round_bias = _mm512_set1_epi32(0x7fff);
    const __m512i one = _mm512_set1_epi32(1);
    const __m512i quiet_bit = _mm512_set1_epi32(0x0040);
    std::int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512i bits = _mm512_loadu_si512(src + i);
        const __m512i top = _mm512_srli_epi32(bits, 16);
        const __m512i rounded = _mm512_srli_epi32(_mm512_add_epi32(bits, _mm512_add_epi32(round_bias, _mm512_and_si512(top, one))), 16);
        const __mmask16 nan = _mm512_cmpgt_epi32_mask(_mm512_and_si512(bits, abs_mask), inf_bits);
        const __m512i out = _mm512_mask_or_epi32(rounded, nan, top, quiet_bit);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), _mm512_cvtepi32_epi16(out));
    }
    bits::f32_to_bf16(src + i, dst + i, n - i);  // the last few elements
}

// bf16 -> f32 is a 16-bit shift (exact), NaN lanes made quiet as the reference does: no BF16
// instruction is needed, so CPUs with AVX-512 BF16 take this loop too.
TINYAMP_AVX512_TARGET void bf16_to_f32(const BFloat16* src, float* dst, std::int64_t n)
{
    const __m512i abs_mask = _mm512_set1_epi32(0x7fffffff);
    const __m512i inf_bits = _mm512_set1_epi32(0x7f800000);
    const __m512i quiet_bit = _mm512_set1_epi32(0x00400000);
    std::int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i));
        const __m512i bits = _mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16);
        const __mmask16 nan = _mm512_cmpgt_epi32_mask(_mm512_and_si512(bits, abs_mask), inf_bits);
        _mm512_storeu_si512(dst + i, _mm512_mask_or_epi32(bits, nan, bits, quiet_bit));
    }
    bits::bf16_to_f32(src + i, dst + i, n - i);  // the last few elements
}

#undef TINYAMP_AVX512_TARGET

}  // namespace avx512

namespace avx512bf16 {

#define TINYAMP_AVX512BF16_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16")))

TINYAMP_AVX512BF16_TARGET void f32_to_bf16(const float* src, BFloat16* dst, std::int64_t n)
{
    const __m512i abs_mask = _mm512_set1_epi32(0x7fffffff);
    const __m512i min_normal = _mm512_set1_epi32(0x00800000);
    const __m512i round_bias = _mm512_set1_epi32(0x7fff);
    const __m512i one = _mm512_set1_epi32(1);
    std::int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512 v = _mm512_loadu_ps(src + i);
        __m256i out = (__m256i)_mm512_cvtneps_pbh(v);
        const __m512i bits = _mm512_castps_si512(v);
        const __m512i magnitude = _mm512_and_si512(bits, abs_mask);
        // Subnormal lanes: 0 < |x| < smallest normal.
        const __mmask16 subnormal = _mm512_mask_cmplt_epi32_mask(_mm512_test_epi32_mask(magnitude, magnitude),
                                                                 magnitude, min_normal);
        if (subnormal) {
            // Round to nearest even on the bit pattern: add 0x7fff plus the lowest kept bit,
            // then keep the top 16 bits. Exact for every finite input that does not overflow.
            const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(bits, 16), one);
            const __m512i rounded = _mm512_srli_epi32(_mm512_add_epi32(bits, _mm512_add_epi32(round_bias, lsb)), 16);
            out = _mm256_mask_blend_epi16(subnormal, out, _mm512_cvtepi32_epi16(rounded));
        }
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), out);
    }
    bits::f32_to_bf16(src + i, dst + i, n - i);  // the last few elements
}

#undef TINYAMP_AVX512BF16_TARGET

}  // namespace avx512bf16

#else  // not x86-64: cpu_features() never reports these, so they are never called

namespace f16c {
void f32_to_f16(const float* src, Half* dst, std::int64_t n) { reference::f32_to_f16(src, dst, n); }
void f16_to_f32(const Half* src, float* dst, std::int64_t n) { reference::f16_to_f32(src, dst, n); }
}  // namespace f16c
namespace avx512 {
void f32_to_bf16(const float* src, BFloat16* dst, std::int64_t n) { reference::f32_to_bf16(src, dst, n); }
void bf16_to_f32(const BFloat16* src, float* dst, std::int64_t n) { reference::bf16_to_f32(src, dst, n); }
}  // namespace avx512
namespace avx2 {
void f32_to_bf16(const float* src, BFloat16* dst, std::int64_t n) { reference::f32_to_bf16(src, dst, n); }
void bf16_to_f32(const BFloat16* src, float* dst, std::int64_t n) { reference::bf16_to_f32(src, dst, n); }
}  // namespace avx2
namespace avx512bf16 {
void f32_to_bf16(const float* src, BFloat16* dst, std::int64_t n) { reference::f32_to_bf16(src, dst, n); }
}  // namespace avx512bf16

#endif

}  // namespace tinyamp::kernels::cpu
