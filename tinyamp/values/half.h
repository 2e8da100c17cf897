#pragma once
/// \file
/// Half (IEEE binary16, "f16") and BFloat16 ("bf16"): 16-bit storage types.
///
/// Arithmetic is never done in 16 bits here: a value widens to float (exactly), the math runs in
/// f32, and the result is rounded once back to 16 bits (round to nearest, ties to even).

#include <cstdint>
#include <iosfwd>

#include "tinyamp/values/float_format.h"
#include "tinyamp/values/half_bits.h"

namespace tinyamp {

/// IEEE 754 binary16: 1 sign, 5 exponent, 10 mantissa bits. Max 65504, eps 2^-10.
/// The element type of DType::f16 (torch.float16). It has no arithmetic of its own: it converts
/// to `float` implicitly (and exactly), so `h * 2.0f` is computed in f32; construct a Half from
/// the result to round it back.
struct Half {
    std::uint16_t bits = 0;  ///< the raw bit pattern (sign, exponent, fraction)

    constexpr Half() = default;  ///< +0
    /// Rounds to nearest, ties to even; overflow gives +-inf, NaN stays NaN (quiet).
    /// (half_bits.h does it on the bits; float_format.h is the readable reference it matches.)
    constexpr explicit Half(float value) : bits(half_bits::f16_from_f32(value)) {}
    /// The same from a double, rounded once (FloatFormat::from_double), never through float.
    constexpr explicit Half(double value) : bits(std::uint16_t(Binary16::from_double(value))) {}
    /// The Half with bit pattern \p b, e.g. `Half::from_bits(0x7c00)` is +inf.
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
/// The element type of DType::bf16 (torch.bfloat16); like Half, it computes as `float`.
struct BFloat16 {
    std::uint16_t bits = 0;  ///< the raw bit pattern: the top 16 bits of the f32 of the same value

    constexpr BFloat16() = default;  ///< +0
    /// Rounds to nearest, ties to even; overflow gives +-inf, NaN stays NaN (quiet).
    constexpr explicit BFloat16(float value) : bits(half_bits::bf16_from_f32(value)) {}
    /// The same from a double, rounded once (FloatFormat::from_double), never through float.
    constexpr explicit BFloat16(double value) : bits(std::uint16_t(BFloat16Format::from_double(value))) {}
    /// The BFloat16 with bit pattern \p b, e.g. `BFloat16::from_bits(0x3f80)` is 1.0.
    static constexpr BFloat16 from_bits(std::uint16_t b)
    {
        BFloat16 h;
        h.bits = b;
        return h;
    }
    /// Exact: every bf16 value is an f32 value.
    constexpr operator float() const { return half_bits::f32_from_bf16(bits); }
};

std::ostream& operator<<(std::ostream& out, Half h);  ///< writes the value as a float
std::ostream& operator<<(std::ostream& out, BFloat16 h);  ///< writes the value as a float

}  // namespace tinyamp
