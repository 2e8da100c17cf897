#pragma once
/// \file
/// The 8-bit and 4-bit float formats of FP8 training and of OCP Microscaling (MX): f8e4m3fn,
/// f8e5m2, e8m0 (the MX block scale) and f4e2m1. Each format is one row of data (minifloat::Format:
/// bit counts, bias, what its top codes mean, and its range, which a lesson can print), and two
/// functions serve every row:
///   - decode(format, code): the exact value of a code, as a double (every value is one);
///   - encode(format, x, overflow): the code of the value nearest to the f32 `x`, ties to even,
///     subnormals included; what a value beyond the largest finite one gives is the caller's
///     choice (Overflow::saturate or Overflow::non_saturating).
///
/// These formats are too narrow to be IEEE formats in every respect: E4M3FN has no inf and only
/// two NaN codes, E8M0 has no sign and no zero, E2M1 has neither inf nor NaN. `Specials` names
/// the four ways the formats spend their top codes. docs/number_formats.md has the tables, and
/// says where ml_dtypes, PyTorch and Transformer Engine agree and where they differ.
/// Codes are held in a `std::uint8_t`; a 4-bit code uses its low 4 bits (fp4_packing.h puts two
/// in one byte).

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <iosfwd>
#include <limits>

#include "tinyamp/values/float_format.h"  // pow2
#include "tinyamp/values/bit_cast.h"

namespace tinyamp::minifloat {

/// What encode() does with a finite value whose rounding goes past the largest finite value, and
/// with +-inf. NaN always stays NaN (where the format has one).
enum class Overflow : std::uint8_t {
    /// To +-max, the largest finite value of that sign: PTX's `.satfinite` conversions
    /// (Transformer Engine) and PyTorch's eager cast to float8_e4m3fn do this, because a scaled
    /// FP8 tensor should not hold one inf or NaN for a value a little too large.
    saturate,
    /// To inf where the format has one (E5M2), else to NaN (E4M3FN, E8M0), as IEEE conversions
    /// and ml_dtypes do: the overflow stays visible, as an f16 overflow does.
    non_saturating,
};

/// How a format spends its codes whose exponent field is all ones (and whether it has a sign).
enum class Specials : std::uint8_t {
    ieee,      ///< exponent all ones: inf (fraction 0) or NaN (fraction not 0), as f16 (E5M2)
    fn,        ///< "finite, NaN": no inf; only S.1111.111 is NaN, the other codes are numbers (E4M3FN)
    fnu,       ///< "finite, NaN, unsigned": no sign bit, no zero, no inf; 0xFF is NaN (E8M0)
    finite,    ///< no inf, no NaN: every code is a number (E2M1)
};

/// One format, as a row of facts. The first eight fields define it; the rest follow from them
/// (make_format computes them), so a printed table cannot disagree with the conversions.
struct Format {
    const char* name;            ///< tinyamp's name: "f8e4m3fn", "f8e5m2", "e8m0", "f4e2m1"
    const char* ml_dtypes_name;  ///< the same format in ml_dtypes and PyTorch: "float8_e4m3fn", ...
    int bits;                    ///< width of a code: 8 or 4
    int exponent_bits;           ///< width of the exponent field
    int mantissa_bits;           ///< stored fraction bits (the leading 1 of a normal value is implicit)
    int bias;                    ///< a normal value is 1.fraction * 2^(field - bias)
    bool has_sign;               ///< false for E8M0, whose 8 bits are all exponent
    Specials specials;           ///< what the top codes mean

    bool has_subnormals;         ///< field 0 means 0.fraction * 2^(1 - bias) (all but E8M0)
    bool has_inf;                ///< only Specials::ieee
    int nan_codes;               ///< how many codes are NaN (both signs)
    std::uint8_t max_code;       ///< the code of the largest finite value (positive)
    double max;                  ///< largest finite value
    double min_normal;           ///< smallest positive normal value
    double min_subnormal;        ///< smallest positive value (= min_normal for E8M0)
    double eps;                  ///< distance from 1.0 to the next larger value
};

/// Fills in a Format's derived fields from its defining ones.
constexpr Format make_format(const char* name, const char* ml_dtypes_name, int exponent_bits, int mantissa_bits,
                             int bias, bool has_sign, Specials specials)
{
    Format f{name, ml_dtypes_name, int(has_sign) + exponent_bits + mantissa_bits, exponent_bits, mantissa_bits,
             bias, has_sign, specials, false, false, 0, 0, 0.0, 0.0, 0.0, 0.0};
    const int all_ones = (1 << exponent_bits) - 1;  // the top exponent field
    const int fractions = 1 << mantissa_bits;       // codes per exponent field
    const int signs = has_sign ? 2 : 1;
    f.has_subnormals = specials != Specials::fnu;
    f.has_inf = specials == Specials::ieee;
    // The largest finite code, and how many codes are NaN.
    int top_field = all_ones, top_fraction = fractions - 1;
    switch (specials) {
    case Specials::ieee: top_field = all_ones - 1; f.nan_codes = signs * (fractions - 1); break;
    case Specials::fn: top_fraction = fractions - 2; f.nan_codes = signs; break;  // S.1111.111 only
    case Specials::fnu: top_field = all_ones - 1; f.nan_codes = 1; break;          // 0xFF only
    case Specials::finite: break;
    }
    f.max_code = std::uint8_t((top_field << mantissa_bits) | top_fraction);
    f.max = double(fractions + top_fraction) * pow2(top_field - bias - mantissa_bits);
    const int min_normal_field = f.has_subnormals ? 1 : 0;
    f.min_normal = pow2(min_normal_field - bias);
    f.min_subnormal = f.has_subnormals ? pow2(1 - bias - mantissa_bits) : f.min_normal;
    f.eps = pow2(-mantissa_bits);
    return f;
}

/// OCP FP8 E4M3 ("fn": finite, NaN): bias 7, max 448, no inf, NaN = S.1111.111 (torch.float8_e4m3fn).
inline constexpr Format f8e4m3fn = make_format("f8e4m3fn", "float8_e4m3fn", 4, 3, 7, true, Specials::fn);
/// OCP FP8 E5M2: bias 15, max 57344, inf and NaN as in IEEE f16 (its top byte) (torch.float8_e5m2).
inline constexpr Format f8e5m2 = make_format("f8e5m2", "float8_e5m2", 5, 2, 15, true, Specials::ieee);
/// OCP MX's shared block scale E8M0: code e means 2^(e - 127), 0xFF is NaN; no sign, no zero
/// (torch.float8_e8m0fnu).
inline constexpr Format e8m0 = make_format("e8m0", "float8_e8m0fnu", 8, 0, 127, false, Specials::fnu);
/// OCP MX FP4 element E2M1: values +-{0, 0.5, 1, 1.5, 2, 3, 4, 6}, no inf, no NaN
/// (ml_dtypes.float4_e2m1fn; torch.float4_e2m1fn_x2 holds two per byte).
inline constexpr Format f4e2m1 = make_format("f4e2m1", "float4_e2m1fn", 2, 1, 1, true, Specials::finite);

/// The four formats, for loops and for the traits table.
inline constexpr std::array<const Format*, 4> kFormats = {&f8e4m3fn, &f8e5m2, &e8m0, &f4e2m1};

/// The sign bit of a code (0 for E8M0, which has none).
constexpr std::uint8_t sign_bit(const Format& f) { return f.has_sign ? std::uint8_t(1u << (f.bits - 1)) : 0; }

/// The bits of \p code below its sign bit (of its low f.bits bits): exponent and fraction.
constexpr unsigned magnitude_of(const Format& f, std::uint8_t code) { return code & ~unsigned(sign_bit(f)) & ((1u << f.bits) - 1); }

/// The NaN code encode() writes (with the sign of the input where the format has a sign): S.1111.111
/// for E4M3FN, S.11111.10 (the quiet NaN) for E5M2, 0xFF for E8M0. E2M1 has no NaN: it writes
/// ml_dtypes' stand-in, 0b1000 (-0), whose sign bit is then flipped by a negative NaN, giving +0;
/// the OCP MX spec leaves this choice to the implementation, and tinyamp matches ml_dtypes.
constexpr std::uint8_t nan_code(const Format& f, bool negative)
{
    const std::uint8_t sign = negative ? sign_bit(f) : 0;
    switch (f.specials) {
    case Specials::ieee: return std::uint8_t(sign | (f.max_code + 3));  // after inf (max + 1): S.11111.10
    case Specials::fn: return std::uint8_t(sign | (f.max_code + 1));    // S.1111.111
    case Specials::fnu: return 0xFF;
    case Specials::finite: return std::uint8_t(sign_bit(f) ^ sign);     // ml_dtypes' stand-in, see above
    }
    return 0;
}

/// True if \p code is a NaN of format \p f (never for E2M1).
constexpr bool is_nan(const Format& f, std::uint8_t code)
{
    const unsigned magnitude = magnitude_of(f, code);
    switch (f.specials) {
    case Specials::ieee: return magnitude > f.max_code + 1u;  // above inf
    case Specials::fn: return magnitude == f.max_code + 1u;
    case Specials::fnu: return magnitude == 0xFF;
    case Specials::finite: return false;
    }
    return false;
}

/// The exact value of \p code (its low f.bits bits): +-inf for E5M2's inf codes, a quiet NaN (with
/// the code's sign) for NaN codes.
constexpr double decode(const Format& f, std::uint8_t code)
{
    const bool negative = code & sign_bit(f);
    if (is_nan(f, code)) {
        const double nan = std::numeric_limits<double>::quiet_NaN();
        return negative ? -nan : nan;
    }
    const unsigned magnitude = magnitude_of(f, code);
    const int field = int(magnitude >> f.mantissa_bits);
    const unsigned fraction = magnitude & ((1u << f.mantissa_bits) - 1);
    double value;
    if (f.has_inf && magnitude == f.max_code + 1u) {
        value = std::numeric_limits<double>::infinity();
    } else if (field == 0 && f.has_subnormals) {  // 0.fraction * 2^(1 - bias)
        value = double(fraction) * pow2(1 - f.bias - f.mantissa_bits);
    } else {  // 1.fraction * 2^(field - bias)
        value = double((1u << f.mantissa_bits) + fraction) * pow2(field - f.bias - f.mantissa_bits);
    }
    return negative ? -value : value;
}

namespace detail {

/// The code that +-inf and too-large values get: +-max when saturating; otherwise inf where the
/// format has one, else NaN (E2M1, with neither, saturates in both modes, as ml_dtypes does).
constexpr std::uint8_t overflow_code(const Format& f, bool negative, Overflow mode)
{
    const std::uint8_t sign = negative ? sign_bit(f) : 0;
    if (mode == Overflow::saturate || f.specials == Specials::finite) return std::uint8_t(sign | f.max_code);
    if (f.has_inf) return std::uint8_t(sign | (f.max_code + 1));  // S.11111.00
    return nan_code(f, negative);
}

/// E8M0 holds powers of two only. Its code is the f32's exponent field, plus one when the f32's
/// fraction says to round up, as ml_dtypes and PyTorch compute it (so tinyamp's scales equal
/// theirs bit for bit):
///   - a normal f32 is 1.f * 2^k: up when f >= 1/2. That is the nearest power of two, and the
///     halfway value 1.5 * 2^k goes up;
///   - an f32 subnormal is 0.f * 2^-126, with field 0 (2^-127, the smallest code: no zero): up to
///     2^-126 when f > 1/2, i.e. for every value above 2^-127 (not the nearest below 1.5 * 2^-127).
/// Zero, negative values and NaN have no E8M0 value: they give NaN.
constexpr std::uint8_t encode_e8m0(std::uint32_t bits, Overflow mode)
{
    const std::uint32_t field = (bits >> 23) & 0xFF, fraction = bits & 0x7FFFFF;
    const bool nan_input = field == 0xFF && fraction != 0;
    if (nan_input || (bits & 0x7FFFFFFF) == 0 || (bits >> 31) != 0) return 0xFF;  // NaN, +-0, negative
    if (field == 0xFF) return detail::overflow_code(e8m0, false, mode);          // +inf
    constexpr std::uint32_t half = 0x400000;  // fraction 1/2
    const bool round_up = fraction > half || (fraction == half && field != 0);
    const std::uint32_t code = field + (round_up ? 1 : 0);
    if (code > e8m0.max_code) return detail::overflow_code(e8m0, false, mode);  // 2^128 does not exist
    return std::uint8_t(code);
}

}  // namespace detail

/// The code of the value of format \p f nearest to \p x, ties to the even code, subnormals
/// included; a value that rounds past \p f.max (and +-inf) is handled by \p overflow. A NaN
/// gives nan_code(f, sign of x). Zero keeps its sign. E8M0, which has no zero and no sign, rounds
/// as detail::encode_e8m0 says.
constexpr std::uint8_t encode(const Format& f, float x, Overflow overflow)
{
    const auto bits = tinyamp::bit_cast<std::uint32_t>(x);
    if (f.specials == Specials::fnu) return detail::encode_e8m0(bits, overflow);
    const bool negative = bits >> 31;
    const std::uint32_t abs_bits = bits & 0x7FFFFFFF;
    if (abs_bits > 0x7F800000) return nan_code(f, negative);
    if (abs_bits == 0x7F800000) return detail::overflow_code(f, negative, overflow);
    const std::uint8_t sign = negative ? sign_bit(f) : 0;

    // |x| = significand * 2^exponent exactly (an f32 subnormal has no implicit 1).
    const int f32_field = int(abs_bits >> 23);
    const std::uint32_t significand = f32_field == 0 ? abs_bits : (abs_bits & 0x7FFFFF) | 0x800000;
    const int exponent = (f32_field == 0 ? 1 : f32_field) - 150;
    if (significand == 0) return sign;  // +-0
    // The binade of |x| in the target format: 2^k <= |x| < 2^(k+1), but no lower than the
    // normals' smallest exponent 1 - bias, below which the subnormals share one spacing.
    const int top_bit = 31 - std::countl_zero(significand);
    const int k = std::max(exponent + top_bit, 1 - f.bias);
    // Keep the bits of the significand worth at least the format's spacing 2^(k - M) there; the
    // dropped ones decide the rounding. For these formats and an f32 input, drop >= 20.
    const int drop = (k - f.mantissa_bits) - exponent;
    if (drop > 25) return sign;  // below half the smallest subnormal: rounds to zero
    std::uint32_t kept = significand >> drop;
    const std::uint32_t rest = significand & ((std::uint32_t{1} << drop) - 1);
    const std::uint32_t half = std::uint32_t{1} << (drop - 1);
    if (rest > half || (rest == half && (kept & 1))) ++kept;  // to nearest, ties to even
    // `kept` counts spacings of 2^(k - M) above 0. In a normal binade it holds the implicit 1
    // (2^M); adding (field - 1) << M gives the code, and a carry out of the fraction moves into
    // the exponent by itself (1.111 rounding up to 10.000 is the next binade's 1.000). A subnormal
    // that rounds up to 2^M is the smallest normal's code, which is right too.
    const int field = k + f.bias;  // >= 1
    const std::uint32_t magnitude = (std::uint32_t(field - 1) << f.mantissa_bits) + kept;
    if (magnitude > f.max_code) return detail::overflow_code(f, negative, overflow);
    return std::uint8_t(sign | magnitude);
}

/// \p x (a double) as an f32 rounded "to odd": truncated toward zero, with the lowest bit set
/// when that dropped anything. Rounding this f32 again to a format with at least two bits fewer
/// gives the same result as rounding \p x directly, so f64 -> f32 -> fp8 rounds only once
/// (plain round-to-nearest through f32 could round twice: a value just above a tie would land on
/// the tie and then go to even). Beyond the f32 range it gives +-FLT_MAX with the bit set, still
/// past every minifloat's max.
constexpr float round_to_odd_f32(double x)
{
    const float nearest = static_cast<float>(x);
    if (x != x || static_cast<double>(nearest) == x) return nearest;  // NaN, or exact (inf included)
    std::uint32_t bits = tinyamp::bit_cast<std::uint32_t>(nearest);
    const bool rounded_away = (nearest < 0 ? -static_cast<double>(nearest) : static_cast<double>(nearest)) > (x < 0 ? -x : x);
    if (rounded_away) --bits;  // one step toward zero: the truncation (inf - 1 step is FLT_MAX)
    return tinyamp::bit_cast<float>(bits | 1u);
}

/// encode() for a double: the code of the value nearest to \p x, rounded once (through
/// round_to_odd_f32). to() uses it for f64 tensors and the factories' values.
constexpr std::uint8_t encode_f64(const Format& f, double x, Overflow overflow) { return encode(f, round_to_odd_f32(x), overflow); }

/// Writes the traits table of the four formats (one row each: name, bits, exponent and mantissa
/// bits, bias, max, smallest normal and subnormal, eps, inf, NaN codes) as Markdown, for lessons.
void print_traits_table(std::ostream& out);

}  // namespace tinyamp::minifloat
