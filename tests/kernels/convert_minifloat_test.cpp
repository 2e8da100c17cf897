// convert() into and out of the FP8 dtypes: through f32, rounded once, with to()'s overflow rule.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "kernels/cpu/convert.h"
#include "tinyamp/support/error.h"

using namespace tinyamp;
namespace cpu = tinyamp::kernels::cpu;

namespace {

constexpr DType kFp8[] = {DType::f8e4m3fn, DType::f8e5m2, DType::e8m0};

std::vector<std::uint8_t> all_codes()
{
    std::vector<std::uint8_t> codes(256);
    for (int c = 0; c < 256; ++c) codes[std::size_t(c)] = std::uint8_t(c);
    return codes;
}

bool same_value(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

}  // namespace

TEST_CASE("every FP8 code converts to each float dtype as its exact value, and back to the same code")
{
    const std::vector<std::uint8_t> codes = all_codes();
    for (DType d : kFp8) {
        CAPTURE(d);
        const minifloat::Format& f = minifloat_format(d);
        std::vector<double> as_f64(256);
        REQUIRE(cpu::convert(codes.data(), d, as_f64.data(), DType::f64, 256) == -1);
        std::vector<float> as_f32(256);
        REQUIRE(cpu::convert(codes.data(), d, as_f32.data(), DType::f32, 256) == -1);
        int wrong = 0;
        for (int c = 0; c < 256; ++c) wrong += !same_value(as_f64[std::size_t(c)], minifloat::decode(f, std::uint8_t(c))) +
                                               !same_value(as_f32[std::size_t(c)], minifloat::decode(f, std::uint8_t(c)));
        CHECK(wrong == 0);
        // Back from f64 and from f32: every code but the NaNs' other payloads comes back.
        for (const void* src : {static_cast<const void*>(as_f64.data()), static_cast<const void*>(as_f32.data())}) {
            const DType from = src == as_f64.data() ? DType::f64 : DType::f32;
            std::vector<std::uint8_t> back(256);
            REQUIRE(cpu::convert(src, from, back.data(), d, 256) == -1);
            int changed = 0;
            for (int c = 0; c < 256; ++c)
                if (!minifloat::is_nan(f, std::uint8_t(c))) changed += back[std::size_t(c)] != codes[std::size_t(c)];
            CHECK(changed == 0);
        }
    }
}

TEST_CASE("to() overflow: E4M3 saturates, E5M2 goes to inf, as PyTorch's cast, NaN stays NaN")
{
    const float in[] = {464.0f, 465.0f, 1e9f, -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()};
    std::uint8_t e4m3[5], e5m2[5];
    cpu::convert(in, DType::f32, e4m3, DType::f8e4m3fn, 5);
    CHECK(e4m3[0] == 0x7E);  // 464 is the tie between 448 and the missing 480: to even, 448
    CHECK(e4m3[1] == 0x7E);  // saturated
    CHECK(e4m3[2] == 0x7E);
    CHECK(e4m3[3] == 0xFE);  // -448
    CHECK(minifloat::is_nan(minifloat::f8e4m3fn, e4m3[4]));
    const float big[] = {61440.0f, 57344.0f, 1e9f, -1e9f, 1.0f};
    cpu::convert(big, DType::f32, e5m2, DType::f8e5m2, 5);
    CHECK(e5m2[0] == 0x7C);  // inf
    CHECK(e5m2[1] == 0x7B);  // max
    CHECK(e5m2[2] == 0x7C);
    CHECK(e5m2[3] == 0xFC);
    CHECK(e5m2[4] == 0x3C);
}

TEST_CASE("from f64, an FP8 value is rounded once: a value just past a tie is not rounded twice")
{
    // 1.0625 is halfway between E4M3's 1.0 and 1.125 and goes to even (1.0); 1.0625 + 2^-40 is
    // past the tie and must go up. Through an f32 rounded to nearest it would land on the tie
    // (2^-40 is below f32's spacing there) and go down: the double rounding that round_to_odd_f32 avoids.
    const double in[] = {1.0625, 1.0625 + std::ldexp(1.0, -40), 1.0625 - std::ldexp(1.0, -40)};
    std::uint8_t out[3];
    REQUIRE(cpu::convert(in, DType::f64, out, DType::f8e4m3fn, 3) == -1);
    CHECK(minifloat::decode(minifloat::f8e4m3fn, out[0]) == 1.0);
    CHECK(minifloat::decode(minifloat::f8e4m3fn, out[1]) == 1.125);
    CHECK(minifloat::decode(minifloat::f8e4m3fn, out[2]) == 1.0);
    CHECK(float(1.0625 + std::ldexp(1.0, -40)) == 1.0625f);  // the trap is real: f32 cannot tell it from the tie

    // The same for i64 past 2^53, where even a double rounds: E8M0 puts 1.5 * 2^60 - 1 at 2^60
    // (below the halfway point), 1.5 * 2^60 itself up at 2^61.
    const std::int64_t ints[] = {(std::int64_t{3} << 59) - 1, std::int64_t{3} << 59, 12345};
    std::uint8_t scales[3];
    REQUIRE(cpu::convert(ints, DType::i64, scales, DType::e8m0, 3) == -1);
    CHECK(scales[0] == 127 + 60);
    CHECK(scales[1] == 127 + 61);
    CHECK(scales[2] == 127 + 14);  // 12345 = 1.507 * 2^13: past 1.5 * 2^13, so up to 2^14
}

TEST_CASE("E8M0 has no value for 0, negative numbers or (not saturating) inf: convert names the first such element")
{
    const float in[] = {1.0f, 0.5f, 0.0f, -2.0f};
    std::uint8_t out[4];
    CHECK(cpu::convert(in, DType::f32, out, DType::e8m0, 4) == 2);
    const float neg[] = {4.0f, -2.0f};
    CHECK(cpu::convert(neg, DType::f32, out, DType::e8m0, 2) == 1);
    const float nan[] = {std::numeric_limits<float>::quiet_NaN()};
    CHECK(cpu::convert(nan, DType::f32, out, DType::e8m0, 1) == -1);  // NaN is a code (0xFF), as NaN is an f16 value
    CHECK(out[0] == 0xFF);
}

TEST_CASE("FP8 to integer and bool, FP8 to FP8, and long buffers across the staging chunks")
{
    std::vector<float> values(5000);
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> uniform(-400.0f, 400.0f);
    for (float& v : values) v = uniform(rng);
    std::vector<std::uint8_t> e4m3(values.size()), e5m2(values.size()), direct(values.size());
    REQUIRE(cpu::convert(values.data(), DType::f32, e4m3.data(), DType::f8e4m3fn, std::int64_t(values.size())) == -1);
    // E4M3 -> E5M2 equals rounding the E4M3 value (exact in f32) straight to E5M2.
    REQUIRE(cpu::convert(e4m3.data(), DType::f8e4m3fn, e5m2.data(), DType::f8e5m2, std::int64_t(values.size())) == -1);
    int wrong = 0;
    for (std::size_t i = 0; i < values.size(); ++i) {
        const float exact = float(minifloat::decode(minifloat::f8e4m3fn, e4m3[i]));
        wrong += e5m2[i] != minifloat::encode(minifloat::f8e5m2, exact, minifloat::Overflow::non_saturating);
        wrong += e4m3[i] != minifloat::encode(minifloat::f8e4m3fn, values[i], minifloat::Overflow::saturate);
    }
    CHECK(wrong == 0);

    std::vector<std::int64_t> ints(values.size());
    REQUIRE(cpu::convert(e4m3.data(), DType::f8e4m3fn, ints.data(), DType::i64, std::int64_t(values.size())) == -1);
    CHECK(ints[0] == std::int64_t(minifloat::decode(minifloat::f8e4m3fn, e4m3[0])));  // truncated toward zero
    std::vector<std::uint8_t> nan_code = {0x7F, 0x00};
    std::int64_t two[2];
    CHECK(cpu::convert(nan_code.data(), DType::f8e4m3fn, two, DType::i64, 2) == 0);  // NaN has no i64 value
    bool flags[2];
    CHECK(cpu::convert(nan_code.data(), DType::f8e4m3fn, flags, DType::boolean, 2) == -1);
    CHECK(flags[0]);  // NaN is true, as in C++
    CHECK_FALSE(flags[1]);
}

TEST_CASE("f4e2m1x2 has no per-element conversion: convert says to pack or unpack")
{
    float in[] = {1.0f};
    std::uint8_t out[1];
    CHECK_THROWS_WITH_AS(cpu::convert(in, DType::f32, out, DType::f4e2m1x2, 1), doctest::Contains("two FP4 values"), Error);
    CHECK_THROWS_AS(cpu::convert(out, DType::f4e2m1x2, in, DType::f32, 1), Error);
}
