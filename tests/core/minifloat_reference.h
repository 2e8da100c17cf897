#pragma once
// An independent reference for tinyamp/values/minifloat.h, written the slow and obvious way:
//   - spec_value(): each format's value formula as the OCP specs write it (std::ldexp, one format
//     at a time, E2M1 from its list of eight values), not tinyamp's generic decode;
//   - ReferenceEncoder: the nearest of the format's finite values, found by binary search in the
//     sorted list of spec_value()s and decided by comparing with the midpoint of the two
//     neighbours (exact in double), ties to the even code; then the overflow rule.
// Used by the unit tests (samples) and by the exhaustive test (all 2^32 f32 inputs).
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "tinyamp/values/minifloat.h"

namespace minifloat_reference {

using tinyamp::minifloat::Format;
using tinyamp::minifloat::Overflow;

enum class Spec { e4m3fn, e5m2, e8m0, e2m1 };

/// The value of \p code as the spec defines it (NaN for NaN codes).
inline double spec_value(Spec spec, unsigned code)
{
    const double nan = std::numeric_limits<double>::quiet_NaN();
    switch (spec) {
    case Spec::e4m3fn: {  // S.EEEE.MMM, bias 7; S.1111.111 is NaN, no inf
        const unsigned e = (code >> 3) & 15, m = code & 7;
        if (e == 15 && m == 7) return nan;
        const double v = e == 0 ? std::ldexp(m, -6 - 3) : std::ldexp(8 + m, int(e) - 7 - 3);
        return (code & 0x80) ? -v : v;
    }
    case Spec::e5m2: {  // S.EEEEE.MM, bias 15; exponent 31 is inf (M = 0) or NaN
        const unsigned e = (code >> 2) & 31, m = code & 3;
        double v;
        if (e == 31) v = m == 0 ? std::numeric_limits<double>::infinity() : nan;
        else v = e == 0 ? std::ldexp(m, -14 - 2) : std::ldexp(4 + m, int(e) - 15 - 2);
        return (code & 0x80) ? -v : v;
    }
    case Spec::e8m0:  // EEEEEEEE: 2^(E - 127); 0xFF is NaN
        return code == 0xFF ? nan : std::ldexp(1.0, int(code) - 127);
    case Spec::e2m1: {  // S.EE.M: the eight magnitudes the OCP MX spec lists
        constexpr double magnitudes[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
        const double v = magnitudes[code & 7];
        return (code & 8) ? -v : v;
    }
    }
    return nan;
}

/// The reference's encode for one format, in both overflow modes.
class ReferenceEncoder {
public:
    explicit ReferenceEncoder(Spec spec) : spec_(spec)
    {
        const unsigned codes = spec == Spec::e2m1 ? 16 : 256;
        const unsigned sign = spec == Spec::e8m0 ? 0 : codes / 2;  // E8M0 has no sign bit
        // Positive finite values in code order, which is value order for every format.
        for (unsigned c = 0; c < (sign ? sign : codes); ++c) {
            const double v = spec_value(spec, c);
            if (!std::isfinite(v)) break;
            values_.push_back(v);
            codes_.push_back(std::uint8_t(c));
        }
        sign_ = std::uint8_t(sign);
        // One code past the largest finite one stands for "rounds beyond max": its value is max
        // plus the spacing of the top binade, and its code decides ties by evenness.
        const std::size_t n = values_.size();
        values_.push_back(values_[n - 1] + (values_[n - 1] - values_[n - 2]));
        codes_.push_back(std::uint8_t(codes_[n - 1] + 1));
        if (spec == Spec::e8m0) values_.back() = 2 * values_[n - 1];  // the next power of two
    }

    /// The code of \p x: nearest value, ties to the even code (E8M0: ties up), then the overflow rule.
    std::uint8_t encode(float x, Overflow mode) const
    {
        const Codes both = encode_both(x);
        return mode == Overflow::saturate ? both.saturate : both.non_saturating;
    }

    /// The codes of \p x in both modes (one search: the exhaustive test's time is mostly here).
    struct Codes {
        std::uint8_t saturate, non_saturating;
    };
    Codes encode_both(float x) const
    {
        const bool negative = std::signbit(x);
        if (std::isnan(x)) return {nan_code(negative), nan_code(negative)};
        if (spec_ == Spec::e8m0) return {encode_e8m0(x, Overflow::saturate), encode_e8m0(x, Overflow::non_saturating)};
        const std::size_t i = nearest(std::fabs(double(x)));
        if (i + 1 == values_.size())  // beyond max, or inf
            return {overflow_code(negative, Overflow::saturate), overflow_code(negative, Overflow::non_saturating)};
        const auto code = std::uint8_t((negative ? sign_ : 0) | codes_[i]);
        return {code, code};
    }

private:
    /// Index in values_ of the value nearest to a >= 0 (the last index: beyond max).
    std::size_t nearest(double a) const
    {
        const auto hi = std::lower_bound(values_.begin(), values_.end(), a);
        if (hi == values_.end()) return values_.size() - 1;
        const std::size_t h = std::size_t(hi - values_.begin());
        if (*hi == a || h == 0) return h;
        const double mid = (values_[h - 1] + values_[h]) / 2;  // exact: neighbours of a narrow format
        if (a < mid) return h - 1;
        if (a > mid) return h;
        if (spec_ == Spec::e8m0) return h;  // E8M0 ties go up (ml_dtypes, PyTorch)
        return (codes_[h] % 2 == 0) ? h : h - 1;
    }

    std::uint8_t encode_e8m0(float x, Overflow mode) const
    {
        if (x <= 0) return 0xFF;  // zero and negative values: no such E8M0 value
        if (std::isinf(x)) return mode == Overflow::saturate ? 0xFE : 0xFF;
        const double a = double(x);
        if (a < 0x1p-126) return a > 0x1p-127 ? 1 : 0;  // f32 subnormals, as ml_dtypes and PyTorch
        const std::size_t i = nearest(a);
        if (i + 1 == values_.size()) return mode == Overflow::saturate ? 0xFE : 0xFF;
        return codes_[i];
    }

    std::uint8_t nan_code(bool negative) const
    {
        switch (spec_) {
        case Spec::e4m3fn: return negative ? 0xFF : 0x7F;
        case Spec::e5m2: return negative ? 0xFE : 0x7E;  // the quiet NaN ml_dtypes writes
        case Spec::e8m0: return 0xFF;
        case Spec::e2m1: return negative ? 0x0 : 0x8;    // ml_dtypes' stand-in (-0), sign flipped
        }
        return 0;
    }

    std::uint8_t overflow_code(bool negative, Overflow mode) const
    {
        const std::uint8_t sign = negative ? sign_ : 0;
        const std::uint8_t max_code = codes_[codes_.size() - 2];
        if (mode == Overflow::saturate || spec_ == Spec::e2m1) return std::uint8_t(sign | max_code);
        if (spec_ == Spec::e5m2) return std::uint8_t(sign | 0x7C);  // inf
        return nan_code(negative);
    }

    Spec spec_;
    std::uint8_t sign_ = 0;
    std::vector<double> values_;       // positive finite values ascending, then "beyond max"
    std::vector<std::uint8_t> codes_;  // their codes
};

/// tinyamp's Format for each Spec, to loop over both together.
inline const Format& format_of(Spec spec)
{
    switch (spec) {
    case Spec::e4m3fn: return tinyamp::minifloat::f8e4m3fn;
    case Spec::e5m2: return tinyamp::minifloat::f8e5m2;
    case Spec::e8m0: return tinyamp::minifloat::e8m0;
    case Spec::e2m1: return tinyamp::minifloat::f4e2m1;
    }
    return tinyamp::minifloat::f8e4m3fn;
}

inline constexpr Spec kSpecs[] = {Spec::e4m3fn, Spec::e5m2, Spec::e8m0, Spec::e2m1};

}  // namespace minifloat_reference
