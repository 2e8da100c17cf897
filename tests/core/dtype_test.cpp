#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <string>

#include <tinyamp/tinyamp.h>

using namespace tinyamp;

TEST_CASE("the traits table holds each dtype's facts")
{
    CHECK(std::string(traits(f16).name) == "f16");
    CHECK(std::string(traits(bf16).long_name) == "bfloat16");
    CHECK(traits(f16).size == 2);
    CHECK(traits(bf16).size == 2);
    CHECK(traits(f32).size == 4);
    CHECK(traits(f64).size == 8);
    CHECK(traits(i64).size == 8);
    CHECK(traits(boolean).size == 1);
    CHECK(traits(f16).exponent_bits == 5);
    CHECK(traits(f16).mantissa_bits == 10);
    CHECK(traits(bf16).exponent_bits == 8);
    CHECK(traits(bf16).mantissa_bits == 7);
    CHECK(traits(f16).max == 65504.0);
    CHECK(traits(f16).min_normal == 6.103515625e-05);
    CHECK(traits(f16).min_subnormal == 5.9604644775390625e-08);
    CHECK(traits(f16).eps == 0.0009765625);
    CHECK(traits(bf16).max == 3.3895313892515355e+38);
    CHECK(traits(bf16).min_normal == double(std::numeric_limits<float>::min()));  // same exponent range as f32
    CHECK(traits(bf16).eps == 0.0078125);
    CHECK(traits(f32).max == double(std::numeric_limits<float>::max()));
    CHECK(traits(f32).eps == double(std::numeric_limits<float>::epsilon()));
    CHECK(traits(f64).min_subnormal == std::numeric_limits<double>::denorm_min());
    CHECK_FALSE(traits(i64).is_floating_point);
    CHECK(traits(i64).eps == 0.0);
    for (DType d : kAllDTypes) CHECK(traits(d).dtype == d);
}

TEST_CASE("dtype names parse, PyTorch spellings included, and unknown names list the accepted ones")
{
    CHECK(parse_dtype("f32") == f32);
    CHECK(parse_dtype("float32") == f32);
    CHECK(parse_dtype("float16") == f16);
    CHECK(parse_dtype("half") == f16);
    CHECK(parse_dtype("bfloat16") == bf16);
    CHECK(parse_dtype("float64") == f64);
    CHECK(parse_dtype("int64") == i64);
    CHECK(parse_dtype("bool") == boolean);
    try {
        parse_dtype("fp8");
        FAIL("parse_dtype accepted fp8");
    } catch (const Error& e) {
        CHECK(e.kind() == ErrorKind::dtype);
        CHECK(std::string(e.what()).find("unknown dtype name 'fp8'") != std::string::npos);
        CHECK(std::string(e.what()).find("bf16, bfloat16") != std::string::npos);
    }
    std::ostringstream out;
    out << bf16 << ' ' << boolean;
    CHECK(out.str() == "bf16 bool");
}

TEST_CASE("promote_types follows PyTorch for mixed dtypes")
{
    CHECK(promote_types(f16, f32) == f32);
    CHECK(promote_types(bf16, f32) == f32);
    CHECK(promote_types(f16, bf16) == f32);  // neither holds the other
    CHECK(promote_types(f32, f64) == f64);
    CHECK(promote_types(f16, f16) == f16);
    CHECK(promote_types(i64, f16) == f16);
    CHECK(promote_types(boolean, bf16) == bf16);
    CHECK(promote_types(boolean, i64) == i64);
}

TEST_CASE("bit_pattern shows sign, exponent and mantissa of the rounded value")
{
    CHECK(bit_pattern(1.0, f16) == "0 01111 0000000000");
    CHECK(bit_pattern(-2.0, bf16) == "1 10000000 0000000");
    CHECK(bit_pattern(65504.0, f16) == "0 11110 1111111111");
    CHECK(bit_pattern(1e-8, f16) == "0 00000 0000000000");
    CHECK(bit_pattern(1.0, f32) == "0 01111111 00000000000000000000000");
    CHECK(bit_pattern(1.0, f64).size() == 64 + 2);
    CHECK_THROWS_AS(bit_pattern(1.0, i64), Error);
}

TEST_CASE("visit_dtype, element_t and dtype_of agree")
{
    for (DType d : kComputeDTypes) {
        const int size = visit_dtype(d, [](auto tag) { return int(sizeof(tag)); });
        CHECK(size == dtype_size(d));
        const DType back = visit_dtype(d, [](auto tag) { return dtype_of<decltype(tag)>(); });
        CHECK(back == d);
    }
    static_assert(std::is_same_v<element_t<DType::bf16>, BFloat16>);
}

TEST_CASE("the FP8/FP4 dtypes: traits rows from their minifloat formats, names, bit patterns")
{
    CHECK(kAllDTypes.size() == kComputeDTypes.size() + kMinifloatDTypes.size());
    for (DType d : kMinifloatDTypes) {
        CAPTURE(d);
        const DTypeTraits& t = traits(d);
        CHECK(is_minifloat(d));
        CHECK_FALSE(t.is_floating_point);  // no op computes in them
        CHECK(t.size == 1);
        REQUIRE(t.minifloat != nullptr);
        CHECK(&minifloat_format(d) == t.minifloat);
        CHECK(t.max == t.minifloat->max);
        CHECK(parse_dtype(t.name) == d);
        CHECK(parse_dtype(t.long_name) == d);
    }
    for (DType d : kComputeDTypes) {
        CHECK_FALSE(is_minifloat(d));
        CHECK_THROWS_AS(minifloat_format(d), Error);
    }
    CHECK(traits(f8e4m3fn).max == 448.0);
    CHECK(traits(f8e5m2).max == 57344.0);
    CHECK(traits(e8m0).min_subnormal == std::ldexp(1.0, -127));
    CHECK(traits(f4e2m1x2).max == 6.0);
    CHECK(traits(f4e2m1x2).values_per_element == 2);
    CHECK(traits(f8e4m3fn).values_per_element == 1);
    CHECK(std::string(traits(f4e2m1x2).long_name) == "float4_e2m1fn_x2");
    CHECK(std::string(traits(e8m0).long_name) == "float8_e8m0fnu");
    CHECK(&minifloat_format(f4e2m1x2) == &minifloat::f4e2m1);

    CHECK(bit_pattern(448, f8e4m3fn) == "0 1111 110");
    CHECK(bit_pattern(1e9, f8e4m3fn) == "0 1111 110");  // to() saturates E4M3, as PyTorch
    CHECK(bit_pattern(-1.0, f8e5m2) == "1 01111 00");
    CHECK(bit_pattern(61440, f8e5m2) == "0 11111 00");  // the tie goes to the even code: inf
    CHECK(bit_pattern(1.0, e8m0) == "01111111");        // no sign, no mantissa
    CHECK(bit_pattern(6.0, f4e2m1x2) == "0 11 1");
    CHECK(cast_overflow(f8e4m3fn) == minifloat::Overflow::saturate);
    CHECK(cast_overflow(f8e5m2) == minifloat::Overflow::non_saturating);
}

TEST_CASE("promote_types refuses the FP8/FP4 dtypes, as PyTorch does, and says to convert")
{
    CHECK(promote_types(f8e4m3fn, f8e4m3fn) == f8e4m3fn);
    for (DType m : kMinifloatDTypes)
        for (DType d : kAllDTypes) {
            if (d == m) continue;
            CAPTURE(m);
            CAPTURE(d);
            CHECK_THROWS_WITH_AS(promote_types(m, d), doctest::Contains(".to(f32)"), Error);
            CHECK_THROWS_AS(promote_types(d, m), Error);
        }
}

TEST_CASE("visit_dtype refuses the FP8/FP4 dtypes with a message that says to convert")
{
    for (DType d : kMinifloatDTypes) CHECK_THROWS_WITH_AS(visit_dtype(d, [](auto) { return 0; }), doctest::Contains(".to(f32)"), Error);
}
