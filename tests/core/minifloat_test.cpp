// The FP8 / MX formats of minifloat.h: the test vectors, every code's value against the
// spec's formula, the traits rows against the published constants, and encode against the
// independent reference (minifloat_reference.h) on special values and a sample of all f32 bit
// patterns (minifloat_exhaustive_test.cpp runs all 2^32). fp4_packing.h is checked at the end.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "minifloat_reference.h"
#include "tinyamp/values/fp4_packing.h"
#include "tinyamp/values/minifloat.h"

namespace mf = tinyamp::minifloat;
using minifloat_reference::ReferenceEncoder;
using minifloat_reference::Spec;
using minifloat_reference::spec_value;
using mf::Overflow;

namespace {

constexpr Overflow kModes[] = {Overflow::saturate, Overflow::non_saturating};
const char* mode_name(Overflow m) { return m == Overflow::saturate ? "saturate" : "non_saturating"; }

double round_trip(const mf::Format& f, float x, Overflow mode) { return mf::decode(f, mf::encode(f, x, mode)); }

float from_bits(std::uint32_t bits) { return std::bit_cast<float>(bits); }

}  // namespace

// The vectors issue 22 lists, case by case.
TEST_CASE("minifloat: the issue's test vectors, in both overflow modes")
{
    // E4M3: 464 is the tie between 448 (mantissa 110, even) and 480 (111, which is NaN): 448.
    CHECK(round_trip(mf::f8e4m3fn, 464.0f, Overflow::non_saturating) == 448.0);
    CHECK(round_trip(mf::f8e4m3fn, 464.0f, Overflow::saturate) == 448.0);
    CHECK(round_trip(mf::f8e4m3fn, -464.0f, Overflow::non_saturating) == -448.0);
    // 465 rounds past 448: NaN, or 448 when saturating.
    CHECK(std::isnan(round_trip(mf::f8e4m3fn, 465.0f, Overflow::non_saturating)));
    CHECK(round_trip(mf::f8e4m3fn, 465.0f, Overflow::saturate) == 448.0);
    CHECK(round_trip(mf::f8e4m3fn, -465.0f, Overflow::saturate) == -448.0);
    // E5M2: 61440 is the tie between 57344 (mantissa 11, odd) and 65536 (inf): inf.
    CHECK(round_trip(mf::f8e5m2, 61440.0f, Overflow::non_saturating) == std::numeric_limits<double>::infinity());
    CHECK(round_trip(mf::f8e5m2, -61440.0f, Overflow::non_saturating) == -std::numeric_limits<double>::infinity());
    CHECK(round_trip(mf::f8e5m2, 61440.0f, Overflow::saturate) == 57344.0);
    CHECK(round_trip(mf::f8e5m2, 61439.99f, Overflow::non_saturating) == 57344.0);
}

TEST_CASE("minifloat: inf, NaN, zero and the formats without them")
{
    const float inf = std::numeric_limits<float>::infinity();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (Overflow mode : kModes) {
        CAPTURE(mode_name(mode));
        const bool sat = mode == Overflow::saturate;
        // E4M3FN has no inf: inf is NaN, or max when saturating (PyTorch's cast does the latter).
        CHECK(sat ? round_trip(mf::f8e4m3fn, inf, mode) == 448.0 : std::isnan(round_trip(mf::f8e4m3fn, inf, mode)));
        CHECK(sat ? round_trip(mf::f8e4m3fn, -inf, mode) == -448.0 : std::isnan(round_trip(mf::f8e4m3fn, -inf, mode)));
        CHECK(round_trip(mf::f8e5m2, inf, mode) == (sat ? 57344.0 : double(inf)));
        CHECK(round_trip(mf::f8e5m2, -inf, mode) == (sat ? -57344.0 : -double(inf)));
        // E2M1 has neither: inf and large values give +-6 in both modes.
        CHECK(round_trip(mf::f4e2m1, inf, mode) == 6.0);
        CHECK(round_trip(mf::f4e2m1, -1e30f, mode) == -6.0);
        // NaN stays NaN and keeps its sign where there is a NaN code.
        CHECK(std::isnan(round_trip(mf::f8e4m3fn, nan, mode)));
        CHECK(std::signbit(round_trip(mf::f8e4m3fn, -nan, mode)));
        CHECK(std::isnan(round_trip(mf::f8e5m2, -nan, mode)));
        CHECK(std::signbit(round_trip(mf::f8e5m2, -nan, mode)));
        CHECK(std::isnan(round_trip(mf::e8m0, nan, mode)));
        // E2M1: ml_dtypes' stand-in for NaN (-0, sign flipped by a negative NaN).
        CHECK(mf::encode(mf::f4e2m1, nan, mode) == 0x8);
        CHECK(mf::encode(mf::f4e2m1, -nan, mode) == 0x0);
        // Zero keeps its sign; E8M0 has no zero and no negative values: NaN.
        CHECK(mf::encode(mf::f8e4m3fn, -0.0f, mode) == 0x80);
        CHECK(mf::encode(mf::f4e2m1, -0.0f, mode) == 0x8);
        CHECK(std::isnan(round_trip(mf::e8m0, 0.0f, mode)));
        CHECK(std::isnan(round_trip(mf::e8m0, -2.0f, mode)));
        CHECK(std::isnan(round_trip(mf::e8m0, -inf, mode)));
        // E8M0: +inf and values rounding past 2^127 are NaN, or 2^127 when saturating.
        CHECK(sat ? round_trip(mf::e8m0, inf, mode) == 0x1p127 : std::isnan(round_trip(mf::e8m0, inf, mode)));
        CHECK(sat ? round_trip(mf::e8m0, 0x1.8p127f, mode) == 0x1p127
                  : std::isnan(round_trip(mf::e8m0, 0x1.8p127f, mode)));
        CHECK(round_trip(mf::e8m0, 0x1.7ffffep127f, mode) == 0x1p127);
    }
}

TEST_CASE("minifloat: E8M0 rounds to the nearest power of two, halfway up, and f32 subnormals as ml_dtypes")
{
    for (Overflow mode : kModes) {
        CHECK(round_trip(mf::e8m0, 1.0f, mode) == 1.0);
        CHECK(round_trip(mf::e8m0, 1.4999999f, mode) == 1.0);
        CHECK(round_trip(mf::e8m0, 1.5f, mode) == 2.0);  // halfway: up, at every exponent
        CHECK(round_trip(mf::e8m0, 3.0f, mode) == 4.0);
        CHECK(round_trip(mf::e8m0, 0.75f, mode) == 1.0);
        CHECK(round_trip(mf::e8m0, 448.0f, mode) == 512.0);
        CHECK(round_trip(mf::e8m0, 0x1p-126f, mode) == 0x1p-126);
        CHECK(round_trip(mf::e8m0, 0x1p-127f, mode) == 0x1p-127);   // an f32 subnormal, exact
        CHECK(round_trip(mf::e8m0, 0x1p-149f, mode) == 0x1p-127);   // no zero: the smallest value
        CHECK(round_trip(mf::e8m0, 0x1.2p-127f, mode) == 0x1p-126); // above 2^-127: up (see minifloat.h)
    }
}

// Every code's value, against the spec formula written independently in minifloat_reference.h.
TEST_CASE("minifloat: every code decodes exactly to the spec's value")
{
    for (Spec spec : minifloat_reference::kSpecs) {
        const mf::Format& f = minifloat_reference::format_of(spec);
        CAPTURE(f.name);
        int nans = 0;
        for (unsigned code = 0; code < (1u << f.bits); ++code) {
            CAPTURE(code);
            const double expected = spec_value(spec, code);
            const double got = mf::decode(f, std::uint8_t(code));
            CHECK(mf::is_nan(f, std::uint8_t(code)) == std::isnan(expected));
            if (std::isnan(expected)) {
                ++nans;
                CHECK(std::isnan(got));
                continue;
            }
            CHECK(got == expected);
            CHECK(std::signbit(got) == std::signbit(expected));  // -0 is -0
        }
        CHECK(nans == f.nan_codes);
        // The bits above a 4-bit code are ignored.
        if (f.bits == 4) CHECK(mf::decode(f, 0xF3) == mf::decode(f, 0x03));
    }
}

// The rows a lesson prints, against the constants the OCP specs and ml_dtypes' finfo publish.
TEST_CASE("minifloat: traits rows")
{
    struct Row { const mf::Format* f; int bits, e, m, bias; double max, min_normal, min_subnormal, eps; bool inf; int nans; };
    const Row rows[] = {
        {&mf::f8e4m3fn, 8, 4, 3, 7, 448, 0x1p-6, 0x1p-9, 0.125, false, 2},
        {&mf::f8e5m2, 8, 5, 2, 15, 57344, 0x1p-14, 0x1p-16, 0.25, true, 6},
        {&mf::e8m0, 8, 8, 0, 127, 0x1p127, 0x1p-127, 0x1p-127, 1, false, 1},
        {&mf::f4e2m1, 4, 2, 1, 1, 6, 1, 0.5, 0.5, false, 0},
    };
    for (const Row& r : rows) {
        CAPTURE(r.f->name);
        CHECK(r.f->bits == r.bits);
        CHECK(r.f->exponent_bits == r.e);
        CHECK(r.f->mantissa_bits == r.m);
        CHECK(r.f->bias == r.bias);
        CHECK(r.f->max == r.max);
        CHECK(r.f->min_normal == r.min_normal);
        CHECK(r.f->min_subnormal == r.min_subnormal);
        CHECK(r.f->eps == r.eps);
        CHECK(r.f->has_inf == r.inf);
        CHECK(r.f->nan_codes == r.nans);
        CHECK(mf::decode(*r.f, r.f->max_code) == r.max);
    }
    std::ostringstream out;
    mf::print_traits_table(out);
    CHECK(out.str().find("| f8e4m3fn | float8_e4m3fn | 8 | 4 | 3 | 7 | 448 | 0.015625 | 0.00195312 | 0.125 | no | 2 |") !=
          std::string::npos);
    CHECK(out.str().find("| e8m0 | float8_e8m0fnu | 8 | 8 | 0 | 127 | 1.70141e+38 | 5.87747e-39 | none | 1 | no | 1 |") !=
          std::string::npos);
}

TEST_CASE("minifloat: every finite code encodes back to itself")
{
    for (Spec spec : minifloat_reference::kSpecs) {
        const mf::Format& f = minifloat_reference::format_of(spec);
        CAPTURE(f.name);
        for (unsigned code = 0; code < (1u << f.bits); ++code) {
            const double v = spec_value(spec, code);
            if (!std::isfinite(v)) continue;
            CAPTURE(code);
            for (Overflow mode : kModes) CHECK(mf::encode(f, float(v), mode) == code);
        }
    }
}

// The special classes, every value and midpoint of each format (and one f32 ulp either side),
// and a stride through all 2^32 bit patterns, against the reference.
TEST_CASE("minifloat: encode equals the reference on midpoints, specials and sampled f32 patterns")
{
    std::vector<std::uint32_t> inputs = {0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007FFFFF, 0x00800000,
                                         0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000, 0x7F800001, 0x7FC00000,
                                         0xFFC00000, 0x7FFFFFFF, 0x00400000, 0x00400001, 0x00600000, 0x00600001};
    for (Spec spec : minifloat_reference::kSpecs) {
        std::vector<double> values;
        for (unsigned c = 0; c < 256; ++c) {
            const double v = spec_value(spec, c);
            if (std::isfinite(v) && v >= 0) values.push_back(v);
        }
        for (std::size_t i = 0; i < values.size(); ++i) {
            const double points[] = {values[i], values[i] * 1.5, i + 1 < values.size() ? (values[i] + values[i + 1]) / 2 : 0};
            for (double p : points) {
                const auto bits = std::bit_cast<std::uint32_t>(float(p));  // exact: these fit in f32
                for (std::uint32_t b : {bits, bits + 1, bits - 1}) {
                    inputs.push_back(b);
                    inputs.push_back(b | 0x80000000u);
                }
            }
        }
    }
    for (std::uint64_t b = 0; b < (std::uint64_t{1} << 32); b += 4099) inputs.push_back(std::uint32_t(b));

    for (Spec spec : minifloat_reference::kSpecs) {
        const mf::Format& f = minifloat_reference::format_of(spec);
        const ReferenceEncoder reference(spec);
        int failures = 0;
        for (std::uint32_t bits : inputs) {
            for (Overflow mode : kModes) {
                const std::uint8_t got = mf::encode(f, from_bits(bits), mode);
                const std::uint8_t want = reference.encode(from_bits(bits), mode);
                if (got != want && ++failures <= 10)
                    FAIL_CHECK(f.name << " " << mode_name(mode) << ": input 0x" << std::hex << bits << " gives 0x" << int(got)
                                      << ", the reference 0x" << int(want));
            }
        }
        CHECK_MESSAGE(failures == 0, f.name << ": " << failures << " mismatches in " << inputs.size() << " inputs x 2 modes");
    }
}

TEST_CASE("minifloat: f4e2m1 packing, two codes per byte, element 0 in the low nibble")
{
    // torch.float4_e2m1fn_x2 (as torch.onnx's unpacking reads it): byte & 0x0F is element 2i,
    // byte >> 4 element 2i + 1.
    for (unsigned a = 0; a < 16; ++a) {
        for (unsigned b = 0; b < 16; ++b) {
            const std::uint8_t byte = mf::pack_fp4x2(std::uint8_t(a), std::uint8_t(b));
            CHECK((byte & 0x0F) == a);
            CHECK((byte >> 4) == b);
            const std::uint8_t row[1] = {byte};
            CHECK(mf::unpack_fp4(row, 0) == a);
            CHECK(mf::unpack_fp4(row, 1) == b);
        }
    }
    CHECK(mf::pack_fp4x2(0xF1, 0xF2) == 0x21);  // only the low nibble of each argument counts
    // A row 1.0, -6.0, 0.5: codes 0x2, 0xF, 0x1 -> bytes 0xF2, 0x01.
    const float row[] = {1.0f, -6.0f, 0.5f};
    std::uint8_t packed[2] = {0, 0};
    for (int i = 0; i < 3; ++i) {
        const std::uint8_t code = mf::encode(mf::f4e2m1, row[i], Overflow::saturate);
        packed[i / 2] = i % 2 == 0 ? mf::pack_fp4x2(code, 0) : mf::pack_fp4x2(packed[i / 2], code);
    }
    CHECK(packed[0] == 0xF2);
    CHECK(packed[1] == 0x01);
    for (int i = 0; i < 3; ++i) CHECK(mf::decode(mf::f4e2m1, mf::unpack_fp4(packed, std::size_t(i))) == row[i]);
}
