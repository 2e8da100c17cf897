// Lab 15's checks. Run them with:  build/lessons/lab_15  (or build/lessons/labs -ts=lab15)
#include <doctest/doctest.h>

#include <vector>

#include "lessons/15_when_not_to_use_amp/lab.h"

using namespace tinyamp;
using namespace tinyamp::lab15;

TEST_SUITE("lab15")
{
    TEST_CASE("lab 15.1: running_sum rounds the sum to the dtype after every addition")
    {
        const std::vector<double> ones(3000, 1.0);
        CHECK(running_sum(ones, f32) == 3000.0);
        CHECK(running_sum(ones, f16) == 2048.0);   // 2048 + 1 is a tie between 2048 and 2050: back to 2048
        CHECK(running_sum(ones, bf16) == 256.0);   // bf16 has 8 significant bits: 256 + 1 rounds to 256
        const std::vector<double> small(10000, 0.001);
        CHECK(running_sum(small, bf16) == 0.5);    // true sum 10: bf16 stalls at 0.5
        CHECK(running_sum(small, f16) == 4.0);     // f16 gets 8x further, and stalls too
        CHECK(running_sum(small, f32) == doctest::Approx(10.0).epsilon(1e-3));
    }

    TEST_CASE("lab 15.2: stall_point finds where adding a value stops changing the sum")
    {
        CHECK(stall_point(1.0, f16, 100000) == 2048.0);
        CHECK(stall_point(1.0, bf16, 100000) == 256.0);
        // 0.001 is 0.000999 in bf16. Between 0.25 and 0.5 the gap is 2^-9 = 0.00195, and 0.000999 is
        // just over half a gap: each add jumps a whole gap. Between 0.5 and 1 the gap is 0.0039 and
        // 0.000999 is under half of it: the sum stalls at 0.5.
        CHECK(stall_point(0.001, bf16, 100000) == 0.5);
        CHECK(stall_point(0.001, f16, 100000) == 4.0);
        CHECK(stall_point(1.0, f32, 1000) == 1000.0);  // no stall within 1000 adds (f32 stalls at 2^24)
    }

    TEST_CASE("lab 15.3: sum_with_f32_accumulator is right where the running sum stalls")
    {
        const std::vector<double> small(10000, 0.001);
        CHECK(sum_with_f32_accumulator(small, bf16) == 10.0);       // 9.9945 in f32, rounded once to bf16
        CHECK(sum_with_f32_accumulator(small, f16) == 10.0078125);  // 10.004 in f32, rounded to f16 (gap 2^-7)
        const std::vector<double> ones(3000, 1.0);
        CHECK(sum_with_f32_accumulator(ones, bf16) == 3008.0);      // 3000 is not a bf16 number: 3008 is the nearest
        CHECK(sum_with_f32_accumulator(ones, f16) == 3000.0);
    }

    TEST_CASE("lab 15.4: choose_low_dtype picks f16 when the range fits it, bf16 when only bf16's does")
    {
        CHECK(choose_low_dtype(1000.0, 0.01) == f16);      // fits f16, which is the more precise
        CHECK(choose_low_dtype(65504.0, 6.103515625e-05) == f16);  // exactly f16's max and smallest normal
        CHECK(choose_low_dtype(1e5, 0.01) == bf16);        // past 65504: f16 would overflow
        CHECK(choose_low_dtype(10.0, 1e-6) == bf16);       // below 6.1e-5: f16 subnormal or 0
        CHECK(choose_low_dtype(1e39, 1.0) == f32);         // past bf16's 3.4e38
        CHECK(choose_low_dtype(1.0, 1e-39) == f32);        // below bf16's smallest normal 1.2e-38
    }
}
