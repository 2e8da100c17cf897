// The reference conversions between f32 and the minifloat formats: one element at a time through
// minifloat::encode / minifloat::decode (tinyamp/values/minifloat.h). Slow and obviously right; the
// fast paths are tested against these.
#include <cmath>

#include "kernels/cpu/minifloat_convert.h"

namespace tinyamp::kernels::cpu::reference {

namespace {

// Whether |y| rounds past f.max: above the halfway point between max and the value one spacing
// above it (which the format does not have), or on it when the tie goes up, i.e. when max's last
// fraction bit is 1 (ties to even). E8M0 rounds 1.5 * 2^k up (minifloat::detail::encode_e8m0).
bool rounds_past_max(const minifloat::Format& f, float y)
{
    const double magnitude = std::fabs(double(y));
    if (std::isinf(magnitude)) return true;
    if (f.specials == minifloat::Specials::fnu) return magnitude >= 1.5 * f.max;
    const double spacing = std::ldexp(1.0, std::ilogb(f.max) - f.mantissa_bits);
    const double halfway = f.max + spacing / 2;
    return magnitude > halfway || (magnitude == halfway && (f.max_code & 1) != 0);
}

}  // namespace

void encode_f32(const minifloat::Format& f, const float* src, std::uint8_t* dst, std::int64_t n, minifloat::Overflow overflow)
{
    for (std::int64_t i = 0; i < n; ++i) dst[i] = minifloat::encode(f, src[i], overflow);
}

void decode_f32(const minifloat::Format& f, const std::uint8_t* src, float* dst, std::int64_t n)
{
    for (std::int64_t i = 0; i < n; ++i) dst[i] = float(minifloat::decode(f, src[i]));  // exact: every value is an f32
}

QuantizeCounts quantize_f32(const minifloat::Format& f, const float* src, float scale, std::uint8_t* dst, std::int64_t n,
                            minifloat::Overflow overflow)
{
    QuantizeCounts counts;
    for (std::int64_t i = 0; i < n; ++i) {
        const float y = src[i] * scale;  // rounded to f32, then encoded
        dst[i] = minifloat::encode(f, y, overflow);
        if (std::isnan(y)) continue;
        if (rounds_past_max(f, y)) ++counts.saturated;
        if (std::isfinite(y) && y != 0.0f && minifloat::decode(f, dst[i]) == 0.0) ++counts.flushed;
    }
    return counts;
}

void dequantize_f32(const minifloat::Format& f, const std::uint8_t* src, float scale_inv, float* dst, std::int64_t n)
{
    for (std::int64_t i = 0; i < n; ++i) dst[i] = float(minifloat::decode(f, src[i])) * scale_inv;
}

}  // namespace tinyamp::kernels::cpu::reference
