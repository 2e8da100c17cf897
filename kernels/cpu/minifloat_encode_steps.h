#pragma once
// The steps of a branch-free f32 -> minifloat encode, shared by the portable (minifloat_convert.cpp)
// and AVX-512 (minifloat_convert_x86.cpp) paths; the AVX-512 one does the same, 16 lanes at a time.
//
// For a format with M fraction bits and bias B (E4M3, E5M2, E2M1: the ones with a sign), and a
// = |x| as f32 bits:
//  * normal target (|x| >= 2^(1 - B), the smallest normal): the f32 bits shifted right by 23 - M
//    are (f32 field << M) | top M fraction bits; rounding to nearest even before the shift is
//    `a + (half - 1) + lowest kept bit`, and subtracting (127 - B) << M rebiases the exponent.
//    A carry out of the fraction moves into the exponent by itself.
//  * subnormal target (|x| < 2^(1 - B)): |x| + 2^(1 - B - M + 23) is a float whose last place is
//    the target's subnormal spacing 2^(1 - B - M), so the f32 addition (round to nearest even)
//    rounds |x| onto the subnormal grid; its bits minus the constant's bits count spacings, i.e.
//    they are the code (2^M spacings: the smallest normal's code, which is right too).
//  * then the fix-ups: a magnitude past max_code (+-inf included) gets the overflow code, a NaN
//    gets the NaN code; the sign goes to bit `bits - 1`.
// E8M0 (no sign, powers of two only) keeps minifloat::detail::encode_e8m0's own steps.

#include <bit>
#include <cstdint>

#include "tinyamp/values/bit_cast.h"
#include "tinyamp/values/minifloat.h"

namespace tinyamp::kernels::cpu::minifloat_steps {

// The constants of the steps above, for one format and overflow mode.
struct EncodeConstants {
    std::uint32_t min_normal_bits;  // f32 bits of 2^(1 - B): below it, the subnormal step
    float magic;                    // 2^(1 - B - M + 23)
    std::uint32_t magic_bits;
    int drop;                       // 23 - M: f32 fraction bits the normal step drops
    std::uint32_t round_bias;       // half - 1 of the dropped bits: 2^(drop - 1) - 1
    std::uint32_t rebias;           // (127 - B) << M
    std::uint32_t max_code;         // the largest finite magnitude
    int sign_shift;                 // 32 - bits: moves the f32 sign bit to the code's sign bit
    std::uint32_t overflow_positive, overflow_negative;  // minifloat::detail::overflow_code
    std::uint32_t nan_positive, nan_negative;            // minifloat::nan_code
};

inline EncodeConstants encode_constants(const minifloat::Format& f, minifloat::Overflow overflow)
{
    EncodeConstants c{};
    const int min_exponent = 1 - f.bias;
    c.min_normal_bits = std::uint32_t(min_exponent + 127) << 23;
    c.magic_bits = std::uint32_t(min_exponent - f.mantissa_bits + 23 + 127) << 23;
    c.magic = tinyamp::bit_cast<float>(c.magic_bits);
    c.drop = 23 - f.mantissa_bits;
    c.round_bias = (std::uint32_t{1} << (c.drop - 1)) - 1;
    c.rebias = std::uint32_t(127 - f.bias) << f.mantissa_bits;
    c.max_code = f.max_code;
    c.sign_shift = 32 - f.bits;
    c.overflow_positive = minifloat::detail::overflow_code(f, false, overflow);
    c.overflow_negative = minifloat::detail::overflow_code(f, true, overflow);
    c.nan_positive = minifloat::nan_code(f, false);
    c.nan_negative = minifloat::nan_code(f, true);
    return c;
}

// The code's magnitude before the fix-ups (past max_code: overflow; garbage for NaN), from a = |x|.
inline std::uint32_t rounded_magnitude(const EncodeConstants& c, std::uint32_t a)
{
    const std::uint32_t lowest_kept = (a >> c.drop) & 1;
    const std::uint32_t normal = ((a + c.round_bias + lowest_kept) >> c.drop) - c.rebias;
    const std::uint32_t subnormal = tinyamp::bit_cast<std::uint32_t>(tinyamp::bit_cast<float>(a) + c.magic) - c.magic_bits;
    return a < c.min_normal_bits ? subnormal : normal;
}

// The E8M0 code of the positive finite f32 bits `a` before the overflow fix-up (255: overflow).
inline std::uint32_t e8m0_rounded_code(std::uint32_t a)
{
    const std::uint32_t field = a >> 23, fraction = a & 0x7FFFFF;
    constexpr std::uint32_t half = 0x400000;
    return field + std::uint32_t(fraction > half || (fraction == half && field != 0));
}

}  // namespace tinyamp::kernels::cpu::minifloat_steps
