// The AVX-512 minifloat conversions: encode with the branch-free steps of
// minifloat_encode_steps.h (16 lanes at a time, masks for the fix-ups), decode by gathering from
// the 256-entry table. Each function is compiled for AVX-512 with a target attribute (not a
// file-wide -m flag), as convert_x86.cpp does; callers check cpu_features().avx512f first. The
// last n % 16 elements take the portable path, which gives the same bits.
#include "kernels/cpu/minifloat_convert.h"
#include "kernels/cpu/minifloat_encode_steps.h"

#if defined(__x86_64__)
// GCC 12 reports "'__Y' may be used uninitialized" inside its own AVX-512 intrinsics (GCC bug
// 105593, fixed in GCC 13), as in convert_x86.cpp. Silenced for this file only.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ == 12
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#endif

namespace tinyamp::kernels::cpu::avx512 {

#if defined(__x86_64__)

#define TINYAMP_AVX512_TARGET __attribute__((target("avx512f,avx512bw,avx512vl")))

namespace {

using minifloat_steps::EncodeConstants;

// E4M3, E5M2, E2M1 (the formats with a sign).
TINYAMP_AVX512_TARGET QuantizeCounts encode_signed(const EncodeConstants& c, const float* src, float scale, std::uint8_t* dst,
                                                  std::int64_t n)
{
    const __m512 scale_v = _mm512_set1_ps(scale);
    const __m512i abs_mask = _mm512_set1_epi32(0x7FFFFFFF), inf_bits = _mm512_set1_epi32(0x7F800000);
    const __m512i one = _mm512_set1_epi32(1), zero = _mm512_setzero_si512();
    const __m512i drop = _mm512_set1_epi32(c.drop), round_bias = _mm512_set1_epi32(int(c.round_bias));
    const __m512i rebias = _mm512_set1_epi32(int(c.rebias)), min_normal = _mm512_set1_epi32(int(c.min_normal_bits));
    const __m512 magic = _mm512_set1_ps(c.magic);
    const __m512i magic_bits = _mm512_set1_epi32(int(c.magic_bits)), max_code = _mm512_set1_epi32(int(c.max_code));
    const __m512i sign_bit = _mm512_set1_epi32(1 << (31 - c.sign_shift));
    const __m512i overflow_positive = _mm512_set1_epi32(int(c.overflow_positive));
    const __m512i overflow_negative = _mm512_set1_epi32(int(c.overflow_negative));
    const __m512i nan_positive = _mm512_set1_epi32(int(c.nan_positive)), nan_negative = _mm512_set1_epi32(int(c.nan_negative));
    QuantizeCounts counts;
    std::int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512i bits = _mm512_castps_si512(_mm512_mul_ps(_mm512_loadu_ps(src + i), scale_v));
        const __m512i a = _mm512_and_si512(bits, abs_mask);
        // Normal target: round to nearest even on the bits, shift, rebias.
        const __m512i lowest_kept = _mm512_and_si512(_mm512_srlv_epi32(a, drop), one);
        const __m512i rounded = _mm512_add_epi32(_mm512_add_epi32(a, round_bias), lowest_kept);
        const __m512i normal = _mm512_sub_epi32(_mm512_srlv_epi32(rounded, drop), rebias);
        // Subnormal target: the magic addition rounds onto the subnormal grid.
        const __m512 shifted = _mm512_add_round_ps(_mm512_castsi512_ps(a), magic, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        const __m512i subnormal = _mm512_sub_epi32(_mm512_castps_si512(shifted), magic_bits);
        const __m512i magnitude = _mm512_mask_blend_epi32(_mm512_cmplt_epu32_mask(a, min_normal), normal, subnormal);
        // Fix-ups: sign, overflow (+-inf included), NaN.
        const __mmask16 negative = _mm512_cmplt_epi32_mask(bits, zero);
        const __mmask16 nan = _mm512_cmpgt_epu32_mask(a, inf_bits);
        const __mmask16 overflow = _mm512_mask_cmpgt_epu32_mask(__mmask16(~nan), magnitude, max_code);
        __m512i code = _mm512_mask_or_epi32(magnitude, negative, magnitude, sign_bit);
        code = _mm512_mask_blend_epi32(overflow, code, _mm512_mask_blend_epi32(negative, overflow_positive, overflow_negative));
        code = _mm512_mask_blend_epi32(nan, code, _mm512_mask_blend_epi32(negative, nan_positive, nan_negative));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), _mm512_cvtepi32_epi8(code));
        // Flushed: finite, not zero, magnitude 0.
        const __mmask16 finite_nonzero = _mm512_mask_cmplt_epu32_mask(_mm512_test_epi32_mask(a, a), a, inf_bits);
        const __mmask16 flushed = _mm512_mask_cmpeq_epi32_mask(finite_nonzero, magnitude, zero);
        counts.saturated += __builtin_popcount(overflow);
        counts.flushed += __builtin_popcount(flushed);
    }
    return counts;
}

// E8M0: minifloat_steps::e8m0_rounded_code, and its fix-ups.
TINYAMP_AVX512_TARGET QuantizeCounts encode_e8m0(const EncodeConstants& c, const float* src, float scale, std::uint8_t* dst,
                                                std::int64_t n)
{
    const __m512 scale_v = _mm512_set1_ps(scale);
    const __m512i abs_mask = _mm512_set1_epi32(0x7FFFFFFF), inf_bits = _mm512_set1_epi32(0x7F800000);
    const __m512i fraction_mask = _mm512_set1_epi32(0x7FFFFF), half = _mm512_set1_epi32(0x400000);
    const __m512i one = _mm512_set1_epi32(1), zero = _mm512_setzero_si512(), all_ones = _mm512_set1_epi32(0xFF);
    const __m512i max_code = _mm512_set1_epi32(int(c.max_code)), overflow_code = _mm512_set1_epi32(int(c.overflow_positive));
    QuantizeCounts counts;
    std::int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512i bits = _mm512_castps_si512(_mm512_mul_ps(_mm512_loadu_ps(src + i), scale_v));
        const __m512i a = _mm512_and_si512(bits, abs_mask);
        const __m512i field = _mm512_srli_epi32(a, 23), fraction = _mm512_and_si512(a, fraction_mask);
        const __mmask16 up = _mm512_cmpgt_epu32_mask(fraction, half) |
                             _mm512_mask_cmpeq_epi32_mask(_mm512_test_epi32_mask(field, field), fraction, half);
        const __m512i rounded = _mm512_mask_add_epi32(field, up, field, one);
        const __mmask16 nan = _mm512_cmpgt_epu32_mask(a, inf_bits);
        const __mmask16 overflow = __mmask16(~nan) & (_mm512_cmpeq_epi32_mask(a, inf_bits) | _mm512_cmpgt_epu32_mask(rounded, max_code));
        const __mmask16 no_value = nan | _mm512_cmpeq_epi32_mask(a, zero) | _mm512_cmplt_epi32_mask(bits, zero);
        __m512i code = _mm512_mask_blend_epi32(overflow, rounded, overflow_code);
        code = _mm512_mask_blend_epi32(no_value, code, all_ones);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), _mm512_cvtepi32_epi8(code));
        counts.saturated += __builtin_popcount(overflow);
    }
    return counts;
}

TINYAMP_AVX512_TARGET QuantizeCounts encode_scaled(const minifloat::Format& f, const float* src, float scale, std::uint8_t* dst,
                                                  std::int64_t n, minifloat::Overflow overflow)
{
    const EncodeConstants c = minifloat_steps::encode_constants(f, overflow);
    QuantizeCounts counts = f.specials == minifloat::Specials::fnu ? encode_e8m0(c, src, scale, dst, n)
                                                                   : encode_signed(c, src, scale, dst, n);
    const std::int64_t done = n - n % 16;
    const QuantizeCounts tail = bits::quantize_f32(f, src + done, scale, dst + done, n - done, overflow);
    counts.saturated += tail.saturated;
    counts.flushed += tail.flushed;
    return counts;
}

// decode_f32 (scaled == false) or dequantize_f32: the table's value, times scale_inv if scaled.
TINYAMP_AVX512_TARGET void dequantize(const minifloat::Format& f, const std::uint8_t* src, bool scaled, float scale_inv, float* dst,
                                      std::int64_t n)
{
    const float* table = decode_table(f);
    const __m512 scale_v = _mm512_set1_ps(scale_inv);
    std::int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512i codes = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)));
        const __m512 values = _mm512_i32gather_ps(codes, table, 4);
        _mm512_storeu_ps(dst + i, scaled ? _mm512_mul_ps(values, scale_v) : values);
    }
    if (scaled) bits::dequantize_f32(f, src + i, scale_inv, dst + i, n - i);
    else bits::decode_f32(f, src + i, dst + i, n - i);
}

}  // namespace

void encode_f32(const minifloat::Format& f, const float* src, std::uint8_t* dst, std::int64_t n, minifloat::Overflow overflow)
{
    encode_scaled(f, src, 1.0f, dst, n, overflow);  // x * 1.0f is x (a NaN may be quieted: same code)
}

void decode_f32(const minifloat::Format& f, const std::uint8_t* src, float* dst, std::int64_t n)
{
    dequantize(f, src, false, 1.0f, dst, n);
}

QuantizeCounts quantize_f32(const minifloat::Format& f, const float* src, float scale, std::uint8_t* dst, std::int64_t n,
                            minifloat::Overflow overflow)
{
    return encode_scaled(f, src, scale, dst, n, overflow);
}

void dequantize_f32(const minifloat::Format& f, const std::uint8_t* src, float scale_inv, float* dst, std::int64_t n)
{
    dequantize(f, src, true, scale_inv, dst, n);
}

#undef TINYAMP_AVX512_TARGET

#else  // not x86-64: cpu_features() never reports avx512f, so these are never called

void encode_f32(const minifloat::Format& f, const float* src, std::uint8_t* dst, std::int64_t n, minifloat::Overflow overflow)
{
    bits::encode_f32(f, src, dst, n, overflow);
}
void decode_f32(const minifloat::Format& f, const std::uint8_t* src, float* dst, std::int64_t n) { bits::decode_f32(f, src, dst, n); }
QuantizeCounts quantize_f32(const minifloat::Format& f, const float* src, float scale, std::uint8_t* dst, std::int64_t n,
                            minifloat::Overflow overflow)
{
    return bits::quantize_f32(f, src, scale, dst, n, overflow);
}
void dequantize_f32(const minifloat::Format& f, const std::uint8_t* src, float scale_inv, float* dst, std::int64_t n)
{
    bits::dequantize_f32(f, src, scale_inv, dst, n);
}

#endif

}  // namespace tinyamp::kernels::cpu::avx512
