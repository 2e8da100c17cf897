// The fast minifloat conversion paths (kernels/cpu/minifloat_convert.h) against the reference,
// bit for bit, for every format and overflow mode: special values, the value of every code and
// each halfway point between neighbours, a structured sweep over every rounding boundary, 10^7
// seeded random bit patterns, every length 0..40 (the vector tails); then decode of all 256
// codes, and quantize's counts on hand-picked cases. Each path the CPU has is called by name,
// whatever TINYAMP_CPU says; the ones it lacks are reported as skipped.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <sstream>
#include <limits>
#include <string>
#include <vector>

#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/minifloat_convert.h"
#include "tests/support/float_samples.h"

using namespace tinyamp;
using namespace tinyamp::test;
namespace cpu = tinyamp::kernels::cpu;
namespace mf = tinyamp::minifloat;

namespace {

using EncodeFn = void (*)(const mf::Format&, const float*, std::uint8_t*, std::int64_t, mf::Overflow);
using DecodeFn = void (*)(const mf::Format&, const std::uint8_t*, float*, std::int64_t);
using QuantizeFn = cpu::QuantizeCounts (*)(const mf::Format&, const float*, float, std::uint8_t*, std::int64_t, mf::Overflow);
using DequantizeFn = void (*)(const mf::Format&, const std::uint8_t*, float, float*, std::int64_t);

struct Path {
    const char* name;
    EncodeFn encode;
    DecodeFn decode;
    QuantizeFn quantize;
    DequantizeFn dequantize;
};

// Every path this CPU can run: the portable one always, AVX-512 where the CPU has it, and the
// dispatcher (whatever it chose).
std::vector<Path> paths_of_this_cpu()
{
    std::vector<Path> paths = {{"bits", cpu::bits::encode_f32, cpu::bits::decode_f32, cpu::bits::quantize_f32, cpu::bits::dequantize_f32},
                               {"dispatched", cpu::encode_f32, cpu::decode_f32, cpu::quantize_f32, cpu::dequantize_f32}};
    if (cpu::detect_cpu_features().avx512f)
        paths.push_back({"avx512", cpu::avx512::encode_f32, cpu::avx512::decode_f32, cpu::avx512::quantize_f32, cpu::avx512::dequantize_f32});
    else
        MESSAGE("SKIPPED avx512 minifloat paths: this CPU has no AVX-512");
    return paths;
}

std::string hex(std::uint32_t bits)
{
    std::ostringstream out;
    out << "0x" << std::hex << bits;
    return out.str();
}

constexpr mf::Overflow kModes[] = {mf::Overflow::saturate, mf::Overflow::non_saturating};

const char* mode_name(mf::Overflow mode) { return mode == mf::Overflow::saturate ? "saturate" : "non_saturating"; }

// Each finite value of every format, each halfway point between neighbours of the same sign, one
// f32 step either side of it, and the special values of tests/support; both signs.
std::vector<float> special_and_grid_values()
{
    std::vector<float> v = special_floats();
    for (const mf::Format* f : mf::kFormats) {
        for (int code = 0; code < (1 << f->bits); ++code) {
            const double a = mf::decode(*f, std::uint8_t(code));
            const double b = mf::decode(*f, std::uint8_t(code + 1));
            if (!std::isfinite(a)) continue;
            const double next = std::isfinite(b) && b > a ? b : a + (a - mf::decode(*f, std::uint8_t(code - 1)));  // past max: one spacing more
            const float mid = float((a + next) / 2);  // exact
            for (float x : {float(a), mid, std::nextafter(mid, 0.0f), std::nextafter(mid, std::numeric_limits<float>::infinity())}) {
                v.push_back(x);
                v.push_back(-x);
            }
        }
    }
    return v;
}

// Every f32 exponent field x sign x the top 4 fraction bits x the lowest kept bit at each drop
// position d (1..23) x the dropped bits 0, 1, half - 1, half, half + 1, all ones: every rounding
// boundary of every format (normal and subnormal targets, each drop position).
std::vector<float> rounding_boundary_sweep()
{
    std::vector<float> v;
    for (std::uint32_t field = 0; field < 256; ++field)
        for (std::uint32_t sign = 0; sign < 2; ++sign)
            for (std::uint32_t d = 1; d <= 23; ++d) {
                const std::uint32_t half = 1u << (d - 1), all_ones = (1u << d) - 1;
                for (std::uint32_t top = 0; top < 16; ++top)
                    for (std::uint32_t lowest_kept = 0; lowest_kept < 2; ++lowest_kept)
                        for (std::uint32_t rest : {0u, 1u, half - 1, half, half + 1, all_ones}) {
                            const std::uint32_t fraction = ((top << 19) | (lowest_kept << d) | (rest & all_ones)) & 0x7FFFFF;
                            v.push_back(f32_from_bits((sign << 31) | (field << 23) | fraction));
                        }
            }
    return v;
}

// Encode and quantize (several scales) of `input` by `path` against the reference, at every
// length 0..40 and over the whole input: the same codes, the same counts.
void same_codes(const Path& path, const mf::Format& f, mf::Overflow mode, const std::vector<float>& input, const std::string& what)
{
    INFO(what << ": " << std::string(path.name) << " " << std::string(f.name) << " " << std::string(mode_name(mode)));
    for (std::int64_t n = 0; n <= 40; ++n) {
        std::vector<std::uint8_t> fast(std::size_t(n) + 1, 0xAB), slow(std::size_t(n) + 1, 0xAB);  // +1: nothing written past n
        path.encode(f, input.data(), fast.data(), n, mode);
        cpu::reference::encode_f32(f, input.data(), slow.data(), n, mode);
        CAPTURE(n);
        REQUIRE(fast == slow);
    }
    const auto size = std::int64_t(input.size());
    std::vector<std::uint8_t> fast(input.size()), slow(input.size());
    path.encode(f, input.data(), fast.data(), size, mode);
    cpu::reference::encode_f32(f, input.data(), slow.data(), size, mode);
    for (std::size_t i = 0; i < input.size(); ++i)
        if (fast[i] != slow[i]) {  // the first difference only
            FAIL_CHECK("encode of " << hex(std::bit_cast<std::uint32_t>(input[i])) << ": " << hex(fast[i]) << " instead of " << hex(slow[i]));
            break;
        }
    for (float scale : {1.0f, 0.37f, 0x1p-10f, 3.0e5f, -2.5f}) {
        CAPTURE(scale);
        const cpu::QuantizeCounts a = path.quantize(f, input.data(), scale, fast.data(), size, mode);
        const cpu::QuantizeCounts b = cpu::reference::quantize_f32(f, input.data(), scale, slow.data(), size, mode);
        CHECK(fast == slow);
        CHECK(a.saturated == b.saturated);
        CHECK(a.flushed == b.flushed);
    }
}

std::vector<std::uint8_t> all_codes()
{
    std::vector<std::uint8_t> codes(256);
    for (int i = 0; i < 256; ++i) codes[std::size_t(i)] = std::uint8_t(i);
    return codes;
}

bool same_bits(float a, float b) { return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b); }

}  // namespace

TEST_CASE("minifloat_convert: each fast encode path gives the reference's codes over special values and every rounding boundary")
{
    const std::vector<float> specials = special_and_grid_values();
    const std::vector<float> sweep = rounding_boundary_sweep();
    for (const Path& path : paths_of_this_cpu())
        for (const mf::Format* f : mf::kFormats)
            for (mf::Overflow mode : kModes) {
                same_codes(path, *f, mode, specials, "special and grid values");
                same_codes(path, *f, mode, sweep, "rounding boundary sweep");
            }
}

TEST_CASE("minifloat_convert: each fast encode path gives the reference's codes on 10^7 random f32 bit patterns")
{
    const std::uint64_t seed = 22;
    INFO("seed " << seed);
    std::vector<float> input;
    for (std::uint32_t bits : random_bit_patterns(10'000'000, seed)) input.push_back(f32_from_bits(bits));
    const auto size = std::int64_t(input.size());
    const std::vector<Path> paths = paths_of_this_cpu();
    std::vector<std::uint8_t> expected(input.size()), got(input.size());
    for (const mf::Format* f : mf::kFormats)
        for (mf::Overflow mode : kModes) {
            INFO(std::string(f->name) << " " << std::string(mode_name(mode)));
            cpu::reference::encode_f32(*f, input.data(), expected.data(), size, mode);
            for (const Path& path : paths) {
                INFO(std::string(path.name));
                path.encode(*f, input.data(), got.data(), size, mode);
                CHECK(got == expected);
            }
        }
}

TEST_CASE("minifloat_convert: decode of all 256 codes equals minifloat::decode, and every path gives the same bits")
{
    const std::vector<std::uint8_t> codes = all_codes();
    for (const mf::Format* f : mf::kFormats) {
        INFO(std::string(f->name));
        std::vector<float> expected(256);
        cpu::reference::decode_f32(*f, codes.data(), expected.data(), 256);
        for (int c = 0; c < 256; ++c) {
            const double exact = mf::decode(*f, std::uint8_t(c));
            CAPTURE(c);
            if (std::isnan(exact)) CHECK((std::isnan(expected[std::size_t(c)]) && std::signbit(expected[std::size_t(c)]) == std::signbit(exact)));
            else CHECK(double(expected[std::size_t(c)]) == exact);
        }
        for (const Path& path : paths_of_this_cpu()) {
            INFO(std::string(path.name));
            for (std::int64_t n : {0, 1, 15, 16, 17, 40, 256}) {
                std::vector<float> got(std::size_t(n) + 1, -7.0f);
                path.decode(*f, codes.data(), got.data(), n);
                CAPTURE(n);
                for (std::int64_t i = 0; i < n; ++i) REQUIRE(same_bits(got[std::size_t(i)], expected[std::size_t(i)]));
                CHECK(got[std::size_t(n)] == -7.0f);  // nothing written past n
            }
            for (float scale_inv : {1.0f, 0.37f, 0x1p-100f, 3.0e30f}) {
                std::vector<float> got(256), slow(256);
                path.dequantize(*f, codes.data(), scale_inv, got.data(), 256);
                cpu::reference::dequantize_f32(*f, codes.data(), scale_inv, slow.data(), 256);
                CAPTURE(scale_inv);
                for (int c = 0; c < 256; ++c) REQUIRE(same_bits(got[std::size_t(c)], slow[std::size_t(c)]));
            }
        }
    }
}

TEST_CASE("minifloat_convert: quantize counts what saturates and what flushes to zero")
{
    constexpr float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    struct Case {
        const mf::Format* format;
        float scale;
        std::vector<float> saturating, flushing, neither;
    };
    // E4M3: max 448, the next grid value would be 480; the tie 464 goes to even (448). The
    // smallest subnormal is 2^-9; half of it ties to even (0) and flushes.
    // E5M2: max 57344, next 65536; the tie 61440 goes to even, which is up: saturates.
    // E2M1: max 6, next 8; the tie 7 goes up. Smallest subnormal 0.5: 0.25 flushes.
    // E8M0: 1.5 * 2^127 rounds up past 2^127; nothing flushes (no zero).
    const std::vector<Case> cases = {
        {&mf::f8e4m3fn, 1.0f, {500.0f, -500.0f, 465.0f, inf, -inf}, {1e-4f, -1e-4f, 0x1p-10f, 1e-40f}, {448.0f, 464.0f, 0x1.8p-10f, 0.0f, -0.0f, nan}},
        {&mf::f8e4m3fn, 2.0f, {250.0f, 233.0f}, {5e-5f, 0x1p-11f}, {224.0f, 232.0f, 1.0f, 0x1p-10f}},
        {&mf::f8e4m3fn, 0x1p-20f, {inf}, {1.0f, 512.0f}, {448.0f * 0x1p20f, 0x1p11f}},
        {&mf::f8e5m2, 1.0f, {61440.0f, -61440.0f, 1e6f, -inf}, {0x1p-18f, 1e-30f}, {57344.0f, 61439.0f, 0x1p-16f, 0x1.8p-17f}},
        {&mf::f4e2m1, 1.0f, {7.0f, -7.0f, 100.0f, inf}, {0.25f, -0.25f, 0.1f}, {6.0f, 6.99f, 0.26f, 0.5f, nan, -nan}},
        {&mf::e8m0, 1.0f, {0x1.8p127f, inf, -inf}, {}, {0x1.7ffffep127f, 1.0f, 1e-40f, 0.0f, -1.0f, nan}},
    };
    for (const Path& path : paths_of_this_cpu())
        for (const Case& c : cases)
            for (mf::Overflow mode : kModes) {
                INFO(std::string(path.name) << " " << std::string(c.format->name) << " scale " << c.scale << " " << std::string(mode_name(mode)));
                // Each group alone, then all of them together, repeated past a vector's width.
                auto counts_of = [&](const std::vector<float>& input) {
                    std::vector<std::uint8_t> codes(input.size());
                    return path.quantize(*c.format, input.data(), c.scale, codes.data(), std::int64_t(input.size()), mode);
                };
                for (float x : c.saturating) {
                    CAPTURE(x);
                    const auto counts = counts_of({x});
                    CHECK(counts.saturated == 1);
                    CHECK(counts.flushed == 0);
                }
                for (float x : c.flushing) {
                    CAPTURE(x);
                    const auto counts = counts_of({x});
                    CHECK(counts.saturated == 0);
                    CHECK(counts.flushed == 1);
                }
                for (float x : c.neither) {
                    CAPTURE(x);
                    const auto counts = counts_of({x});
                    CHECK(counts.saturated == 0);
                    CHECK(counts.flushed == 0);
                }
                std::vector<float> all;
                for (int repeat = 0; repeat < 7; ++repeat)
                    for (const auto* group : {&c.saturating, &c.flushing, &c.neither}) all.insert(all.end(), group->begin(), group->end());
                const auto counts = counts_of(all);
                CHECK(counts.saturated == std::int64_t(7 * c.saturating.size()));
                CHECK(counts.flushed == std::int64_t(7 * c.flushing.size()));
            }
}
