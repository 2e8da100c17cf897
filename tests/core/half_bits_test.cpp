#include <doctest/doctest.h>

#include <bit>
#include <cstdint>
#include <ios>
#include <random>

#include "tinyamp/values/float_format.h"
#include "tinyamp/values/half_bits.h"

using namespace tinyamp;

namespace {

// The reference: the general, readable rounding of float_format.h (f32 -> double is exact).
std::uint16_t reference_f16(float v) { return std::uint16_t(Binary16::from_double(v)); }
std::uint16_t reference_bf16(float v) { return std::uint16_t(BFloat16Format::from_double(v)); }

// Counts the f32 bit patterns whose fast conversion differs from the reference; reports the first.
struct Mismatches {
    std::int64_t count = 0;
    std::uint32_t first = 0;
    void check(std::uint32_t bits)
    {
        const float v = std::bit_cast<float>(bits);
        if (half_bits::f16_from_f32(v) != reference_f16(v) || half_bits::bf16_from_f32(v) != reference_bf16(v)) {
            if (count++ == 0) first = bits;
        }
    }
};

}  // namespace

static_assert(half_bits::f16_from_f32(1.5f) == 0x3e00 && half_bits::bf16_from_f32(-1.5f) == 0xbfc0, "usable in constant expressions");

TEST_CASE("half_bits widens every f16 and bf16 bit pattern exactly as float_format.h does")
{
    for (std::uint32_t b = 0; b < 0x10000u; ++b) {
        const auto bits = std::uint16_t(b);
        const float f16 = half_bits::f32_from_f16(bits), bf16 = half_bits::f32_from_bf16(bits);
        const float f16_ref = float(Binary16::to_double(bits)), bf16_ref = float(BFloat16Format::to_double(bits));
        INFO("bits 0x" << std::hex << b);
        REQUIRE(std::bit_cast<std::uint32_t>(f16) == std::bit_cast<std::uint32_t>(f16_ref));
        REQUIRE(std::bit_cast<std::uint32_t>(bf16) == std::bit_cast<std::uint32_t>(bf16_ref));
    }
}

TEST_CASE("half_bits narrows f32 exactly as float_format.h does, ties and specials included")
{
    Mismatches m;
    // Every bf16 rounding case: each upper half with the lower halves around the tie.
    for (std::uint32_t hi = 0; hi < 0x10000u; ++hi)
        for (std::uint32_t lo : {0x0000u, 0x0001u, 0x7fffu, 0x8000u, 0x8001u, 0xffffu}) m.check(hi << 16 | lo);
    // Every f16 rounding case: the 13 dropped bits around the tie, for every upper 19 bits (this
    // covers subnormal results too, whose ties sit at other bits, through the next sweep).
    for (std::uint32_t hi = 0; hi < (1u << 19); ++hi)
        for (std::uint32_t lo : {0x0000u, 0x0001u, 0x0fffu, 0x1000u, 0x1001u, 0x1fffu}) m.check(hi << 13 | lo);
    // f16 subnormal results (f32 exponents 102..112): there `shift` bits are dropped, so the tie
    // sits at bit shift-1. Every kept value with the dropped bits around that tie, both signs.
    for (std::uint32_t e = 102; e <= 112; ++e) {
        const std::uint32_t shift = 126 - e, half = 1u << (shift - 1);
        // At e = 102 all 24 significand bits are dropped (shift 24): only kept = 0 is left.
        const std::uint32_t first_kept = shift <= 23 ? 1u << (23 - shift) : 0u;
        for (std::uint32_t kept = first_kept; kept < (1u << (24 - shift)); ++kept)
            for (std::uint32_t rest : {0u, 1u, half - 1, half, half + 1, 2 * half - 1}) {
                const std::uint32_t bits = e << 23 | (((kept << shift) | rest) & 0x7fffffu);
                m.check(bits);
                m.check(bits | 0x80000000u);
            }
    }
    // Seeded random sweeps: over all patterns, and over the f16 subnormal range.
    const std::uint32_t seed = 20261121;
    std::mt19937 rng(seed);
    for (int i = 0; i < 4000000; ++i) m.check(std::uint32_t(rng()));
    std::uniform_int_distribution<std::uint32_t> subnormal(0x33000000u, 0x38800000u);
    for (int i = 0; i < 1000000; ++i) m.check(subnormal(rng) | (std::uint32_t(rng()) & 0x80000000u));
    INFO("seed " << seed << ", first mismatch at f32 bits 0x" << std::hex << m.first);
    CHECK(m.count == 0);
}
