#pragma once
// erf and exp in f32, written so that a compiler vectorizes a loop that calls them: no branches
// (both sides are computed and one is selected), no table, no libm call but fmaf. Used by the
// GELU kernels (gelu_kernel.h). The coefficients are fit by scripts/fit_erf_coefficients.py
// (least squares on Chebyshev nodes, weighted for relative error); the measured accuracy against
// double-precision libm over a dense sweep (tests/kernels/gelu_kernel_test.cpp) is printed there and in
// docs/kernels.md: erf_f32 within 1.2 ulp, exp_nonpositive_f32 within 1.03 ulp.
//
// Every multiply-add is an explicit fmaf, and gelu_kernel.cpp is compiled with -ffp-contract=off,
// so each tier (portable, AVX2 + FMA, AVX-512) computes the same bits: fmaf is exact everywhere,
// as the FMA instruction or as libm's fmaf on a CPU without one.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "tinyamp/values/bit_cast.h"

namespace tinyamp::kernels::cpu::approx {

// Horner's rule with a fused multiply-add per step: c[0] + v (c[1] + v (c[2] + ...)). Written as
// a fold, not a loop, so that the loop calling it is a single loop that the compiler vectorizes.
template <std::size_t N, std::size_t... I>
[[gnu::always_inline]] inline float horner_steps(const float (&c)[N], float v, std::index_sequence<I...>)
{
    float r = c[N - 1];
    ((r = __builtin_fmaf(r, v, c[N - 2 - I])), ...);
    return r;
}
template <std::size_t N>
[[gnu::always_inline]] inline float horner(const float (&c)[N], float v)
{
    return horner_steps(c, v, std::make_index_sequence<N - 1>{});
}

/// e^y for y <= 0 (y below -87 is taken as -87: about 1.6e-38, where the callers' results round
/// to 0 anyway); NaN gives NaN. y = n ln2 + r with |r| <= ln2 / 2, e^r by a degree-6 polynomial,
/// 2^n put into the exponent bits.
[[gnu::always_inline]] inline float exp_nonpositive_f32(float y)
{
    static constexpr float kExp[] = {1.0f, 1.0f, 0.49999991059303284f, 0.16666419804096222f, 0.04166822507977486f, 0.008374815806746483f,
                              0.0013836829457432032f};
    constexpr float kRound = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer (ties to even)
    constexpr float kLn2Hi = 0.693359375f, kLn2Lo = -2.12194440e-4f;  // ln 2 = hi + lo, hi with 9 bits, so n hi is exact
    const bool nan = y != y;
    const float given = y;
    y = nan ? 0.0f : (y < -87.0f ? -87.0f : y);  // NaN computes as 0 (int(NaN) below would be undefined), then is returned
    const float n = (y * 1.44269504088896341f + kRound) - kRound;
    const float r = __builtin_fmaf(-n, kLn2Lo, __builtin_fmaf(-n, kLn2Hi, y));
    const float two_to_n = tinyamp::bit_cast<float>(std::int32_t(int(n) + 127) << 23);  // n in [-126, 0]: a normal number
    const float e = horner(kExp, r) * two_to_n;
    return nan ? given : e;
}

/// erf(x). |x| < 1: x P(x^2), P of degree 6 (relative error 1.2e-9 before rounding). |x| >= 1:
/// 1 - e^(-x^2) Q(|x| - 2.5) with the sign of x, Q of degree 11 fit to erfcx = e^(x^2) erfc(x) on
/// [1, 4] (relative error 2.8e-8), and x^2 split exactly into hi + lo so e^(-x^2) loses nothing;
/// from |x| = 4 on, erf rounds to +-1 in f32. NaN gives NaN, +-inf gives +-1.
[[gnu::always_inline]] inline float erf_f32(float x)
{
    static constexpr float kSmall[] = {1.1283791065216064f,  -0.3761262595653534f,    0.1128358542919159f,    -0.02685382030904293f,
                                0.005188342649489641f, -0.0008010311285033822f, 7.854221621528268e-05f};
    static constexpr float kLarge[] = {0.21080635488033295f,    -0.0743473544716835f,     0.02493818663060665f,   -0.008001540787518024f,
                                0.0024660450872033834f,  -0.0007335406844504178f,  0.00021289281721692532f, -5.912359483772889e-05f,
                                1.4394358913705219e-05f, -3.926866156689357e-06f,  1.66450547567365e-06f,   -3.9718455013826315e-07f};
    // The leading term alone in extra precision: x (c0_hi + c0_lo) + x u R(u), where R holds the
    // other coefficients, so that only a small correction carries the polynomial's rounding.
    static constexpr float kSmallTail[] = {kSmall[1], kSmall[2], kSmall[3], kSmall[4], kSmall[5], kSmall[6]};
    constexpr float kC0Lo = float(1.1283791670955126 - double(kSmall[0]));  // 2 / sqrt(pi) - c0
    const float a = std::fabs(x);
    const float u = x * x;
    const float small = std::copysign(__builtin_fmaf(x, kSmall[0], __builtin_fmaf(x, kC0Lo, (x * u) * horner(kSmallTail, u))), x);  // -0 stays -0
    const float c = a < 4.0f ? a : 4.0f;  // also turns inf into 4, whose erf rounds to 1
    const float hi = c * c, lo = __builtin_fmaf(c, c, -hi);  // c^2 = hi + lo exactly
    const float e = exp_nonpositive_f32(-hi) * (1.0f - lo);  // e^(-hi - lo), lo within half an ulp of hi
    const float large = std::copysign(__builtin_fmaf(-e, horner(kLarge, c - 2.5f), 1.0f), x);
    const float result = a < 1.0f ? small : large;
    return x != x ? x : result;
}

}  // namespace tinyamp::kernels::cpu::approx
