// tinyamp's own conversions (the reference, written in float_format.h) against the CPU's own
// instructions, bit for bit: F16C vcvtps2ph / vcvtph2ps and AVX-512 BF16 vcvtneps2bf16. These
// instructions are called directly here, not through tinyamp, so the test has an independent oracle.
#include <doctest/doctest.h>

#include <cstring>
#include <ios>
#include <string>

#include "kernels/cpu/convert.h"
#include "kernels/cpu/cpu_features.h"
#include "tests/support/float_samples.h"

#if defined(__x86_64__)
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ == 12
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // GCC bug 105593 in the AVX-512 intrinsics
#endif
#include <immintrin.h>

using namespace tinyamp;
using namespace tinyamp::test;
using tinyamp::kernels::cpu::detect_cpu_features;

namespace {

__attribute__((target("avx,f16c"))) std::uint16_t hw_f32_to_f16(float x)
{
    return std::uint16_t(_mm_extract_epi16(_mm_cvtps_ph(_mm_set_ss(x), _MM_FROUND_TO_NEAREST_INT), 0));
}

__attribute__((target("avx,f16c"))) std::uint32_t hw_f16_to_f32(std::uint16_t h)
{
    return std::bit_cast<std::uint32_t>(_mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(h))));
}

__attribute__((target("avx512f,avx512vl,avx512bf16"))) std::uint16_t hw_f32_to_bf16(float x)
{
    const __m128bh r = _mm_cvtneps_pbh(_mm_set_ss(x));
    std::uint16_t out[8];
    std::memcpy(out, &r, sizeof out);
    return out[0];
}

std::uint16_t ours_f16(float x) { return Half(x).bits; }
std::uint16_t ours_bf16(float x) { return BFloat16(x).bits; }

// Checks ours == hardware for every input; stops at the first difference and shows it.
template <class Ours, class Hardware>
void expect_same(const std::vector<float>& inputs, Ours ours, Hardware hw, const std::string& what, bool skip_f32_subnormals = false)
{
    std::size_t compared = 0;
    for (float x : inputs) {
        if (skip_f32_subnormals && is_f32_subnormal(x)) continue;
        ++compared;
        const auto a = ours(x), b = hw(x);
        if (a != b) {
            FAIL_CHECK(what << ": input bits 0x" << std::hex << std::bit_cast<std::uint32_t>(x) << " (" << x << "): ours 0x" << a
                            << ", hardware 0x" << b);
            return;
        }
    }
    CHECK(compared > 0);
    MESSAGE(what << ": " << compared << " inputs, all equal");
}

}  // namespace

TEST_CASE("f32 -> f16 equals F16C vcvtps2ph (round to nearest) bit for bit")
{
    if (!detect_cpu_features().f16c) {
        MESSAGE("SKIPPED: this CPU has no F16C");
        return;
    }
    expect_same(special_floats(), ours_f16, hw_f32_to_f16, "special values");
    expect_same(grid_boundaries<Binary16>(), ours_f16, hw_f32_to_f16, "every f16 value and halfway point, +-1 ulp");
    expect_same(grid_boundaries<BFloat16Format>(), ours_f16, hw_f32_to_f16, "every bf16 value and halfway point, +-1 ulp");
    const std::uint64_t seed = 1;
    INFO("seed " << seed);
    std::vector<float> random;
    for (std::uint32_t bits : random_bit_patterns(10'000'000, seed)) random.push_back(f32_from_bits(bits));
    expect_same(random, ours_f16, hw_f32_to_f16, "10^7 random bit patterns");
}

TEST_CASE("f32 -> bf16 equals AVX-512 BF16 vcvtneps2bf16 bit for bit, except that it flushes f32 subnormals")
{
    if (!detect_cpu_features().avx512bf16) {
        MESSAGE("SKIPPED: this CPU has no AVX-512 BF16");
        return;
    }
    expect_same(special_floats(), ours_bf16, hw_f32_to_bf16, "special values", true);
    expect_same(grid_boundaries<BFloat16Format>(), ours_bf16, hw_f32_to_bf16, "every bf16 value and halfway point, +-1 ulp", true);
    expect_same(grid_boundaries<Binary16>(), ours_bf16, hw_f32_to_bf16, "every f16 value and halfway point, +-1 ulp", true);
    const std::uint64_t seed = 2;
    INFO("seed " << seed);
    std::vector<float> random;
    for (std::uint32_t bits : random_bit_patterns(10'000'000, seed)) random.push_back(f32_from_bits(bits));
    expect_same(random, ours_bf16, hw_f32_to_bf16, "10^7 random bit patterns", true);

    // What the instruction does with f32 subnormal inputs: it treats them as zero (keeping the
    // sign), whatever MXCSR says. tinyamp rounds them like every other value instead.
    for (float x : {0x1p-149f, -0x1p-149f, 0x1p-133f, 0x1.8p-134f, -0x1.fffffcp-127f, f32_from_bits(0x007fffff)}) {
        CAPTURE(x);
        const std::uint16_t hw = hw_f32_to_bf16(x);
        CHECK((hw & 0x7fff) == 0);                               // flushed to zero...
        CHECK((hw & 0x8000) == (std::bit_cast<std::uint32_t>(x) >> 16 & 0x8000));  // ...keeping the sign
    }
    CHECK(ours_bf16(0x1p-133f) == 0x0001);  // tinyamp keeps the smallest bf16 subnormal
    CHECK(ours_bf16(0x1.8p-134f) == 0x0001);
    CHECK(ours_bf16(-0x1.fffffcp-127f) == 0x8080);  // the largest subnormal rounds up to -min normal
}

TEST_CASE("every f16 value widens to f32 as F16C vcvtph2ps does, and rounds back unchanged")
{
    if (!detect_cpu_features().f16c) {
        MESSAGE("SKIPPED: this CPU has no F16C");
        return;
    }
    int nans = 0;
    for (std::uint32_t bits = 0; bits < 65536; ++bits) {
        const Half h = Half::from_bits(std::uint16_t(bits));
        const float wide = float(h);
        CAPTURE(bits);
        REQUIRE(std::bit_cast<std::uint32_t>(wide) == hw_f16_to_f32(std::uint16_t(bits)));
        if (std::isnan(wide)) {
            ++nans;
            CHECK((std::bit_cast<std::uint32_t>(wide) & 0x00400000u) != 0);        // comes out quiet
            CHECK(Half(wide).bits == (bits | 0x0200));                             // back: same NaN, quiet bit set
        } else {
            REQUIRE(Half(wide).bits == bits);                                      // exact round trip
        }
    }
    CHECK(nans == 2 * 1023);
}

TEST_CASE("every bf16 value widens to f32 exactly (a 16-bit shift) and rounds back unchanged")
{
    int nans = 0;
    for (std::uint32_t bits = 0; bits < 65536; ++bits) {
        const float wide = float(BFloat16::from_bits(std::uint16_t(bits)));
        CAPTURE(bits);
        if (std::isnan(wide)) {
            ++nans;
            CHECK(std::bit_cast<std::uint32_t>(wide) == ((bits << 16) | 0x00400000u));  // quiet, payload kept
            CHECK(BFloat16(wide).bits == (bits | 0x0040));
        } else {
            REQUIRE(std::bit_cast<std::uint32_t>(wide) == bits << 16);
            REQUIRE(BFloat16(wide).bits == bits);
        }
    }
    CHECK(nans == 2 * 127);
}

#endif  // __x86_64__
