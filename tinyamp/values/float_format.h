#pragma once
/// \file
/// IEEE 754 binary formats described by two numbers: exponent bits E and mantissa (fraction) bits M.
///
/// `f64 = <11, 52>`, `f32 = <8, 23>`, `f16 = <5, 10>`, `bf16 = <8, 7>`.
/// This file holds the exact conversions between such a format and double, written once for all
/// formats, so a student can read how rounding works in one place:
///   - narrowing rounds to nearest, ties to even, with subnormals, overflow to +-inf, and NaN kept
///     NaN (the quiet bit is set, the top payload bits are kept, as x86 hardware does);
///   - widening is always exact (every f16/bf16/f32 value is a double).
///
/// Going through double is safe: f32 -> double is exact, so f32 -> f16 via double rounds only once.
/// Integers have their own entry (from_int64) so they too are rounded only once.

#include "tinyamp/values/bit_cast.h"

#include <bit>
#include <cstdint>

namespace tinyamp {

/// 2^k as a double, exactly, for -1074 <= k <= 1023 (constexpr, unlike std::ldexp in C++20).
constexpr double pow2(int k)
{
    if (k < -1022) return pow2(k + 64) * pow2(-64);  // a subnormal power of two: still exact
    return tinyamp::bit_cast<double>(std::uint64_t(k + 1023) << 52);
}

/// An IEEE 754 binary format with \p E exponent bits and \p M stored mantissa bits (plus a sign
/// bit): its constants and the exact, round-to-nearest-even conversions to and from double.
/// Bit patterns are held in the low 1 + E + M bits of a `std::uint64_t`. The four formats tinyamp
/// uses are Binary64, Binary32, Binary16 and BFloat16Format; DTypeTraits is derived from them.
template <int E, int M>
struct FloatFormat {
    static_assert(E >= 2 && E <= 11 && M >= 1 && M <= 52 && E + M < 64);
    static constexpr int exponent_bits = E;  ///< E: width of the exponent field
    static constexpr int mantissa_bits = M;  ///< M: stored fraction bits (the leading 1 is implicit)
    static constexpr int bias = (1 << (E - 1)) - 1;  ///< exponent bias: 2^(E-1) - 1 (f16: 15, f32: 127)
    static constexpr int max_exponent = bias;     ///< of the largest finite value
    static constexpr int min_exponent = 1 - bias;  ///< of the smallest normal value
    using Bits = std::uint64_t;  ///< a bit pattern of this format, in the low 1 + E + M bits
    static constexpr Bits sign_bit = Bits{1} << (E + M);  ///< the sign bit, the top one
    static constexpr Bits exponent_mask = ((Bits{1} << E) - 1) << M;  ///< the exponent field; also the bits of +inf
    static constexpr Bits mantissa_mask = (Bits{1} << M) - 1;  ///< the fraction field
    static constexpr Bits quiet_bit = Bits{1} << (M - 1);  ///< the top fraction bit, set in a quiet NaN

    static constexpr double max() { return (2.0 - pow2(-M)) * pow2(max_exponent); }  ///< largest finite value (f16: 65504)
    static constexpr double min_normal() { return pow2(min_exponent); }  ///< smallest positive normal value
    static constexpr double min_subnormal() { return pow2(min_exponent - M); }  ///< smallest positive value
    /// Distance from 1.0 to the next representable value.
    static constexpr double eps() { return pow2(-M); }

    /// Rounds `v` to the nearest value of this format (ties to even) and returns its bit pattern.
    static constexpr Bits from_double(double v);
    /// The same for an integer, rounded once (going through double would round twice above 2^53).
    static constexpr Bits from_int64(std::int64_t v);
    /// The rounding itself: the bits of the value nearest to +-significand * 2^exponent.
    static constexpr Bits from_parts(bool negative, std::uint64_t significand, int exponent);
    /// The exact value of a bit pattern (NaNs come back quiet, with their payload).
    static constexpr double to_double(Bits bits);
};

template <int E, int M>
constexpr typename FloatFormat<E, M>::Bits FloatFormat<E, M>::from_parts(bool negative, std::uint64_t significand,
                                                                        int exponent)
{
    const Bits sign = negative ? sign_bit : 0;
    if (significand == 0) return sign;
    const int top = 63 - std::countl_zero(significand);  // value = 1.xxx * 2^(exponent + top)
    const int value_exponent = exponent + top;
    if (value_exponent > max_exponent) return sign | exponent_mask;  // beyond the largest binade: inf

    // Keep M fraction bits for a normal result; a subnormal result keeps fewer, one fewer for
    // every binade below the smallest normal exponent.
    const int target_field = value_exponent + bias;  // the biased exponent; <= 0 means subnormal
    const int drop = top - M + (target_field >= 1 ? 0 : 1 - target_field);
    std::uint64_t kept;
    if (drop <= 0) {
        kept = significand << -drop;  // fits: nothing is lost
    } else {
        if (drop > 64) return sign;  // below half the smallest subnormal: rounds to zero
        kept = drop == 64 ? 0 : significand >> drop;
        const std::uint64_t rest = drop == 64 ? significand : significand & ((std::uint64_t{1} << drop) - 1);
        const std::uint64_t half = std::uint64_t{1} << (drop - 1);
        if (rest > half || (rest == half && (kept & 1))) ++kept;  // to nearest, ties to even
    }
    // For a normal result `kept` still holds the implicit leading 1 (value 2^M); adding it to
    // (field - 1) << M gives field << M plus the fraction, and a rounding carry moves into the
    // exponent by itself. A subnormal result is `kept` alone (exponent field 0), and one that
    // rounds up to 2^M becomes the smallest normal, which is the right encoding too.
    Bits magnitude = target_field >= 1 ? (Bits(target_field - 1) << M) + kept : kept;
    if (magnitude >= exponent_mask) magnitude = exponent_mask;  // rounded past max: inf
    return sign | magnitude;
}

template <int E, int M>
constexpr typename FloatFormat<E, M>::Bits FloatFormat<E, M>::from_double(double v)
{
    constexpr std::uint64_t d_mantissa_mask = (std::uint64_t{1} << 52) - 1;
    const std::uint64_t x = tinyamp::bit_cast<std::uint64_t>(v);
    const bool negative = x >> 63;
    const std::uint64_t ax = x & ~(std::uint64_t{1} << 63);
    if (ax >= 0x7ff0000000000000u) {  // inf, or NaN: quiet it and keep the top payload bits
        const Bits sign = negative ? sign_bit : 0;
        if (ax == 0x7ff0000000000000u) return sign | exponent_mask;
        return sign | exponent_mask | quiet_bit | ((ax & d_mantissa_mask) >> (52 - M));
    }
    const int field = int(ax >> 52);
    const std::uint64_t fraction = ax & d_mantissa_mask;
    if (field == 0) return from_parts(negative, fraction, -1074);  // double subnormal (or zero)
    return from_parts(negative, fraction | (std::uint64_t{1} << 52), field - 1075);
}

template <int E, int M>
constexpr typename FloatFormat<E, M>::Bits FloatFormat<E, M>::from_int64(std::int64_t v)
{
    const std::uint64_t magnitude = v < 0 ? std::uint64_t{0} - std::uint64_t(v) : std::uint64_t(v);
    return from_parts(v < 0, magnitude, 0);
}

template <int E, int M>
constexpr double FloatFormat<E, M>::to_double(Bits bits)
{
    const bool negative = bits & sign_bit;
    const Bits field = (bits & exponent_mask) >> M;
    const Bits fraction = bits & mantissa_mask;
    const std::uint64_t d_sign = negative ? (std::uint64_t{1} << 63) : 0;
    if (field == (exponent_mask >> M)) {  // inf or NaN (NaN: set the quiet bit, keep the payload)
        const std::uint64_t nan_bits = fraction ? (std::uint64_t{1} << 51) | (fraction << (52 - M)) : 0;
        return tinyamp::bit_cast<double>(d_sign | 0x7ff0000000000000u | nan_bits);
    }
    if (field == 0) {  // zero or subnormal: fraction * 2^(min_exponent - M), exact in double
        const double magnitude = double(fraction) * pow2(min_exponent - M);
        return negative ? -magnitude : magnitude;
    }
    const std::uint64_t d_field = std::uint64_t(int(field) - bias + 1023);
    return tinyamp::bit_cast<double>(d_sign | (d_field << 52) | (fraction << (52 - M)));
}

using Binary16 = FloatFormat<5, 10>;  ///< IEEE binary16, tinyamp's f16 (Half)
using BFloat16Format = FloatFormat<8, 7>;  ///< bfloat16, tinyamp's bf16 (BFloat16)
using Binary32 = FloatFormat<8, 23>;  ///< IEEE binary32, f32 (`float`)
using Binary64 = FloatFormat<11, 52>;  ///< IEEE binary64, f64 (`double`)

}  // namespace tinyamp
