#include <doctest/doctest.h>

#include <tinyamp/tinyamp.h>

using namespace tinyamp;

TEST_CASE("result_type: category first, then dimensioned over 0-D, then promote_types")
{
    CHECK(result_type(ones({2}, f16), ones({2}, f32)) == f32);
    CHECK(result_type(ones({2}, f16), ones({}, f32)) == f16);
    CHECK(result_type(ones({}, f16), ones({}, f32)) == f32);
    CHECK(result_type(ones({2}, i64), ones({}, bf16)) == bf16);
    CHECK(result_type(ones({2}, boolean), ones({}, i64)) == i64);
    CHECK(result_type(ones({2}, f64), ones({2}, bf16)) == f64);
}

TEST_CASE("scalar_like: a number takes a float tensor's dtype, else i64 or f32")
{
    CHECK(scalar_like(2.5, ones({2}, bf16)).dtype() == bf16);
    CHECK(scalar_like(3.0, ones({2}, i64)).dtype() == i64);
    CHECK(scalar_like(2.5, ones({2}, i64)).dtype() == f32);
    CHECK(scalar_like(2.5, ones({2}, f16)).dim() == 0);
    CHECK(float_result_type(i64) == f32);
    CHECK(float_result_type(f16) == f16);
}
