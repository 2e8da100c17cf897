#pragma once
// Half (IEEE binary16, "f16") and BFloat16 ("bf16"): 16-bit storage types.
// Arithmetic is never done in 16 bits here: a value widens to float (exactly), the math runs in
// f32, and the result is rounded once back to 16 bits (round to nearest, ties to even).

#include <cstdint>
#include <iosfwd>

#include "tinyamp/core/float_format.h"
#include "tinyamp/core/half_bits.h"

namespace tinyamp {

/// IEEE 754 binary16: 1 sign, 5 exponent, 10 mantissa bits. Max 65504, eps 2^-10.
struct Half {
    std::uint16_t bits = 0;

    constexpr Half() = default;
    /// Rounds to nearest, ties to even; overflow gives +-inf, NaN stays NaN (quiet).
    /// (half_bits.h does it on the bits; float_format.h is the readable reference it matches.)
    constexpr explicit Half(float value) : bits(half_bits::f16_from_f32(value)) {}
    constexpr explicit Half(double value) : bits(std::uint16_t(Binary16::from_double(value))) {}
    static constexpr Half from_bits(std::uint16_t b)
    {
        Half h;
        h.bits = b;
        return h;
    }
    /// Exact: every f16 value is an f32 value.
    constexpr operator float() const { return half_bits::f32_from_f16(bits); }
};

/// bfloat16: the top half of an f32 (1 sign, 8 exponent, 7 mantissa bits). f32's range, eps 2^-7.
struct BFloat16 {
    std::uint16_t bits = 0;

    constexpr BFloat16() = default;
    constexpr explicit BFloat16(float value) : bits(half_bits::bf16_from_f32(value)) {}
    constexpr explicit BFloat16(double value) : bits(std::uint16_t(BFloat16Format::from_double(value))) {}
    static constexpr BFloat16 from_bits(std::uint16_t b)
    {
        BFloat16 h;
        h.bits = b;
        return h;
    }
    constexpr operator float() const { return half_bits::f32_from_bf16(bits); }
};

std::ostream& operator<<(std::ostream& out, Half h);
std::ostream& operator<<(std::ostream& out, BFloat16 h);

}  // namespace tinyamp
