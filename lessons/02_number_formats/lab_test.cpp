// Lab 2's checks. Run them with:  build/lessons/labs -ts=lab02
#include <doctest/doctest.h>

#include <cmath>

#include "lessons/02_number_formats/lab.h"

using namespace tinyamp;
using namespace tinyamp::lab02;

TEST_SUITE("lab02")
{
    TEST_CASE("lab 02.1: round_to rounds like the dtype stores")
    {
        CHECK(round_to(1.0 + 1e-4, f16) == 1.0);      // f16's eps is 2^-10 = 0.00098
        CHECK(round_to(1.0 + 1e-4, f32) > 1.0);
        CHECK(round_to(2049.0, f16) == 2048.0);       // halfway between 2048 and 2050: ties to even
        CHECK(std::isinf(round_to(65520.0, f16)));   // halfway to 65536, which is past f16's max: inf
        CHECK(round_to(1e-8, f16) == 0.0);
    }

    TEST_CASE("lab 02.2: spacing_at gives the gap to the next number")
    {
        CHECK(spacing_at(1.0, f16) == 0.0009765625);  // 2^-10
        CHECK(spacing_at(1.0, bf16) == 0.0078125);    // 2^-7
        CHECK(spacing_at(2048.0, f16) == 2.0);
        CHECK(spacing_at(3000.0, f16) == 2.0);
        CHECK(spacing_at(1.0, f32) == 1.1920928955078125e-07);  // 2^-23
    }

    TEST_CASE("lab 02.3: survives_in tells overflow and underflow apart from rounding")
    {
        CHECK(survives_in(1e-8, f16) == false);   // below half of f16's smallest subnormal 5.96e-8
        CHECK(survives_in(1e-8, bf16) == true);   // bf16 reaches 9.2e-41
        CHECK(survives_in(1e5, f16) == false);    // above 65504
        CHECK(survives_in(1.0 + 1e-4, f16) == true);  // rounded to 1, but it survives
        CHECK(survives_in(0.0, f16) == true);
    }
}
