// The generic rounding in float_format.h, checked at compile time on known bit patterns and at
// run time against the hardware's own f64 -> f32 rounding (a third format: if the generic code
// were wrong for some E/M it would likely show there too).
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <ios>
#include <limits>
#include <random>

#include "tinyamp/values/float_format.h"

using namespace tinyamp;

// f16: exact values, the overflow edge and the underflow edge.
static_assert(Binary16::from_double(1.0) == 0x3c00);
static_assert(Binary16::from_double(-2.0) == 0xc000);
static_assert(Binary16::from_double(65504.0) == 0x7bff);           // largest finite
static_assert(Binary16::from_double(65519.99) == 0x7bff);          // below the halfway point
static_assert(Binary16::from_double(65520.0) == 0x7c00);           // halfway to 65536: ties to even = inf
static_assert(Binary16::from_double(0x1p-14) == 0x0400);           // smallest normal
static_assert(Binary16::from_double(0x1p-24) == 0x0001);           // smallest subnormal
static_assert(Binary16::from_double(0x1p-25) == 0x0000);           // halfway to 0: ties to even = 0
static_assert(Binary16::from_double(0x1.8p-25) == 0x0001);         // above halfway: up
static_assert(Binary16::from_double(0x1.ffcp-15) == 0x0400);       // the largest subnormal rounds up into the normals
static_assert(Binary16::from_double(1.0 + 0x1p-11) == 0x3c00);     // tie, even neighbour is 1
static_assert(Binary16::from_double(1.0 + 3 * 0x1p-11) == 0x3c02); // tie, even neighbour is above
static_assert(Binary16::from_double(-0.0) == 0x8000);
static_assert(Binary16::from_double(std::numeric_limits<double>::infinity()) == 0x7c00);
static_assert(Binary16::from_double(1e300) == 0x7c00);
static_assert(Binary16::from_double(1e-300) == 0x0000);
static_assert(Binary16::from_double(std::numeric_limits<double>::denorm_min()) == 0x0000);
// bf16
static_assert(BFloat16Format::from_double(1.0) == 0x3f80);
static_assert(BFloat16Format::from_double(1.0 + 0x1p-8) == 0x3f80);      // tie to even
static_assert(BFloat16Format::from_double(1.0 + 3 * 0x1p-8) == 0x3f82);  // tie to even (up)
static_assert(BFloat16Format::from_double(0x1p-133) == 0x0001);           // smallest subnormal
static_assert(BFloat16Format::from_double(3.4e38) == 0x7f80);             // f32 max rounds to inf in bf16
// Rounding exactly once from an integer (through double it would round twice):
// 2^62 + 2^54 + 1 is just above a bf16 tie, so it must round up to 2^62 + 2^55; via double the
// +1 is lost first and the tie then rounds down to 2^62.
static_assert(BFloat16Format::from_int64((std::int64_t{1} << 62) + (std::int64_t{1} << 54) + 1) == 0x5e81);
static_assert(BFloat16Format::from_double(double((std::int64_t{1} << 62) + (std::int64_t{1} << 54) + 1)) == 0x5e80);
static_assert(Binary16::from_int64(-65504) == 0xfbff);
static_assert(Binary16::from_int64(std::numeric_limits<std::int64_t>::min()) == 0xfc00);
// Widening is exact.
static_assert(Binary16::to_double(0x0001) == 0x1p-24);
static_assert(Binary16::to_double(0x7bff) == 65504.0);
static_assert(BFloat16Format::to_double(0x0001) == 0x1p-133);

TEST_CASE("the traits of each format equal the published constants")
{
    CHECK(Binary32::max() == std::numeric_limits<float>::max());
    CHECK(Binary32::min_normal() == std::numeric_limits<float>::min());
    CHECK(Binary32::min_subnormal() == std::numeric_limits<float>::denorm_min());
    CHECK(Binary32::eps() == std::numeric_limits<float>::epsilon());
    CHECK(Binary64::max() == std::numeric_limits<double>::max());
    CHECK(Binary64::min_normal() == std::numeric_limits<double>::min());
    CHECK(Binary64::min_subnormal() == std::numeric_limits<double>::denorm_min());
    CHECK(Binary64::eps() == std::numeric_limits<double>::epsilon());
    CHECK(Binary16::max() == 65504.0);
    CHECK(Binary16::min_normal() == 6.103515625e-05);
    CHECK(Binary16::min_subnormal() == 5.9604644775390625e-08);
    CHECK(Binary16::eps() == 0.0009765625);
    CHECK(BFloat16Format::max() == 3.3895313892515355e+38);
    CHECK(BFloat16Format::min_normal() == 1.1754943508222875e-38);
    CHECK(BFloat16Format::min_subnormal() == 9.183549615799121e-41);
    CHECK(BFloat16Format::eps() == 0.0078125);
}

TEST_CASE("generic rounding to <8,23> equals the hardware's f64 -> f32 rounding")
{
    const std::uint64_t seed = 20261121;
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    // Random bit patterns cover every exponent; values near f32's edges are added on purpose.
    for (int i = 0; i < 2'000'000; ++i) {
        double d = std::bit_cast<double>(rng());
        if (i % 4 == 1) d = std::ldexp(double(rng() >> 11) * 0x1p-53 + 0.5, int(rng() % 60) - 155);  // f32 subnormals
        if (i % 4 == 2) d = std::ldexp(double(rng() >> 11) * 0x1p-53 + 0.5, int(rng() % 10) + 124);  // f32 overflow edge
        if (std::isnan(d)) continue;  // NaN payload rules are checked on their own below
        const std::uint32_t hw = std::bit_cast<std::uint32_t>(static_cast<float>(d));
        const auto ours = std::uint32_t(Binary32::from_double(d));
        if (hw != ours) {
            FAIL_CHECK("f64 " << d << " (bits 0x" << std::hex << std::bit_cast<std::uint64_t>(d) << "): hardware 0x" << hw << ", ours 0x" << ours);
            break;
        }
    }
}

TEST_CASE("NaN stays NaN, comes out quiet and keeps its top payload bits")
{
    const double signaling = std::bit_cast<double>(std::uint64_t{0x7ff0'0400'0000'0001});  // quiet bit clear
    CHECK(Binary16::from_double(signaling) == (0x7c00 | 0x0200 | 0x0001));  // payload 0x00400... -> f16 bit 0
    CHECK(BFloat16Format::from_double(-std::numeric_limits<double>::quiet_NaN()) == 0xffc0);
    CHECK(std::isnan(Binary16::to_double(0x7c01)));
    CHECK(std::bit_cast<std::uint64_t>(Binary16::to_double(0x7c01)) == 0x7ff8'0400'0000'0000u);  // quieted, payload kept
    CHECK(std::bit_cast<std::uint64_t>(Binary16::to_double(0x7c00)) == 0x7ff0'0000'0000'0000u);  // inf is not NaN
}

TEST_CASE("pow2 is exact down to the smallest double")
{
    CHECK(pow2(0) == 1.0);
    CHECK(pow2(-1022) == std::numeric_limits<double>::min());
    CHECK(pow2(-1074) == std::numeric_limits<double>::denorm_min());
    CHECK(pow2(1023) == std::ldexp(1.0, 1023));
}
