#pragma once
/// \file
/// Fast f32 <-> f16/bf16 conversions of one value, on the bits, for the hot loops.
///
/// Elementwise kernels load and store one element at a time. These functions give exactly the
/// bits of the general, readable conversions in float_format.h (FloatFormat::from_double /
/// to_double), which stay the reference: tests compare the two over every 16-bit pattern and
/// millions of f32 values.

#include "tinyamp/values/bit_cast.h"

#include <bit>
#include <cstdint>

namespace tinyamp::half_bits {

/// f32 -> bf16, round to nearest, ties to even. bf16 is the top half of an f32, so rounding is
/// "add just under half of the dropped part, plus the kept lowest bit, and cut": a carry moves into
/// the exponent by itself (up to inf), subnormals round the same way. NaN stays NaN, made quiet.
constexpr std::uint16_t bf16_from_f32(float value)
{
    const std::uint32_t u = tinyamp::bit_cast<std::uint32_t>(value);
    if ((u & 0x7fffffffu) > 0x7f800000u) return std::uint16_t((u >> 16) | 0x0040u);
    return std::uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

/// bf16 -> f32: exact, the bits move to the top half (a NaN comes back quiet).
constexpr float f32_from_bf16(std::uint16_t bits)
{
    std::uint32_t u = std::uint32_t(bits) << 16;
    if ((u & 0x7fffffffu) > 0x7f800000u) u |= 0x00400000u;
    return tinyamp::bit_cast<float>(u);
}

/// f32 -> f16, round to nearest, ties to even, with f16's subnormals, overflow to inf, NaN quiet
/// with its top payload bits.
constexpr std::uint16_t f16_from_f32(float value)
{
    const std::uint32_t u = tinyamp::bit_cast<std::uint32_t>(value);
    const std::uint32_t sign = (u >> 16) & 0x8000u;
    const std::uint32_t a = u & 0x7fffffffu;
    if (a > 0x7f800000u) return std::uint16_t(sign | 0x7e00u | ((a >> 13) & 0x3ffu));  // NaN
    if (a >= 0x477ff000u) return std::uint16_t(sign | 0x7c00u);  // >= 65520 (or inf): rounds to inf
    if (a >= 0x38800000u) {  // a normal f16 (>= 2^-14): rebias the exponent, round away 13 bits
        const std::uint32_t r = a - (112u << 23) + 0xfffu + ((a >> 13) & 1u);
        return std::uint16_t(sign | (r >> 13));
    }
    if (a <= 0x33000000u) return std::uint16_t(sign);  // <= 2^-25: half the smallest subnormal or less, a tie to 0
    // A subnormal f16: the value in units of 2^-24 is the significand shifted right.
    const std::uint32_t significand = (a & 0x7fffffu) | 0x800000u;
    const int shift = 126 - int(a >> 23);  // 14..24
    std::uint32_t kept = significand >> shift;
    const std::uint32_t rest = significand & ((1u << shift) - 1u), half = 1u << (shift - 1);
    if (rest > half || (rest == half && (kept & 1u))) ++kept;  // may become 0x400: the smallest normal
    return std::uint16_t(sign | kept);
}

/// f16 -> f32: exact (a NaN comes back quiet with its payload).
constexpr float f32_from_f16(std::uint16_t bits)
{
    const std::uint32_t sign = std::uint32_t(bits & 0x8000u) << 16;
    const std::uint32_t field = (bits >> 10) & 0x1fu, fraction = bits & 0x3ffu;
    if (field == 0x1fu) return tinyamp::bit_cast<float>(sign | 0x7f800000u | (fraction ? 0x00400000u | (fraction << 13) : 0u));
    if (field != 0) return tinyamp::bit_cast<float>(sign | ((field + 112u) << 23) | (fraction << 13));
    const float magnitude = float(fraction) * 0x1p-24f;  // subnormal or zero: exact in f32
    return tinyamp::bit_cast<float>(sign | tinyamp::bit_cast<std::uint32_t>(magnitude));
}

}  // namespace tinyamp::half_bits
