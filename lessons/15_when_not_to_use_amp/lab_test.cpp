// Lab 15's checks. Run them with:  scripts/lab check 15
#include <vector>

#include "lessons/15_when_not_to_use_amp/lab.h"
#include "lessons/support/lab_checks.h"

using namespace tinyamp;
using namespace tinyamp::lab15;

TEST_SUITE("lab15")
{
    TEST_CASE("lab 15.1: running_sum rounds the sum to the dtype after every addition")
    {
        const std::vector<double> ones(3000, 1.0);
        LAB_CHECK("f32 counts 3000 ones exactly",
                  running_sum(ones, f32) == 3000.0);
        LAB_CHECK("f16: 2048 + 1 is a tie between 2048 and 2050 and rounds back to 2048, so the sum stays 2048 "
                  "(mistake: keeping the running sum in f32)",
                  running_sum(ones, f16) == 2048.0);
        LAB_CHECK("bf16 has 8 significant bits: 256 + 1 rounds back to 256 (mistake: keeping the running sum in f32)",
                  running_sum(ones, bf16) == 256.0);
        const std::vector<double> small(10000, 0.001);
        LAB_CHECK("the true sum of 10000 x 0.001 is 10, but a bf16 running sum stalls at 0.5",
                  running_sum(small, bf16) == 0.5);
        LAB_CHECK("an f16 running sum gets 8x further than bf16, and stalls too, at 4",
                  running_sum(small, f16) == 4.0);
        LAB_CHECK("an f32 running sum of 10000 x 0.001 is 10 to 3 digits",
                  running_sum(small, f32) == doctest::Approx(10.0).epsilon(1e-3));
    }

    TEST_CASE("lab 15.2: stall_point finds where adding a value stops changing the sum")
    {
        LAB_CHECK("adding 1.0 in f16 stalls at 2048 (2048 + 1 rounds back to 2048)",
                  stall_point(1.0, f16, 100000) == 2048.0);
        LAB_CHECK("adding 1.0 in bf16 stalls at 256",
                  stall_point(1.0, bf16, 100000) == 256.0);
        // 0.001 is 0.000999 in bf16. Between 0.25 and 0.5 the gap is 2^-9 = 0.00195, and 0.000999 is
        // just over half a gap: each add jumps a whole gap. Between 0.5 and 1 the gap is 0.0039 and
        // 0.000999 is under half of it: the sum stalls at 0.5.
        LAB_CHECK("0.001 in bf16 stalls at 0.5, where it becomes less than half the gap between bf16 numbers",
                  stall_point(0.001, bf16, 100000) == 0.5);
        LAB_CHECK("0.001 in f16 stalls at 4",
                  stall_point(0.001, f16, 100000) == 4.0);
        LAB_CHECK("f32 stalls only at 2^24: 1000 adds of 1.0 give 1000 (mistake: doing one addition fewer than max_adds)",
                  stall_point(1.0, f32, 1000) == 1000.0);
    }

    TEST_CASE("lab 15.3: sum_with_f32_accumulator is right where the running sum stalls")
    {
        const std::vector<double> small(10000, 0.001);
        LAB_CHECK("10000 x bf16(0.001) is 9.9945 in f32, rounded once to bf16: 10 "
                  "(mistake: returning the f32 total without rounding it to the dtype)",
                  sum_with_f32_accumulator(small, bf16) == 10.0);
        LAB_CHECK("10000 x f16(0.001) is 10.004 in f32, rounded once to f16 (a gap of 2^-7 there): 10.0078125 "
                  "(mistake: returning the f32 total without rounding it to the dtype)",
                  sum_with_f32_accumulator(small, f16) == 10.0078125);
        const std::vector<double> ones(3000, 1.0);
        LAB_CHECK("3000 is not a bf16 number: the nearest, 3008, is the answer in bf16 "
                  "(mistake: returning the f32 total without rounding it to the dtype)",
                  sum_with_f32_accumulator(ones, bf16) == 3008.0);
        LAB_CHECK("3000 ones accumulated in f32 are 3000, an f16 number",
                  sum_with_f32_accumulator(ones, f16) == 3000.0);
    }

    TEST_CASE("lab 15.4: choose_low_dtype picks f16 when the range fits it, bf16 when only bf16's does")
    {
        LAB_CHECK("1000 and 0.01 fit f16's range, and f16 is the more precise: f16 (mistake: trying bf16 before f16)",
                  choose_low_dtype(1000.0, 0.01) == f16);
        LAB_CHECK("exactly f16's largest number and smallest normal still fit: f16",
                  choose_low_dtype(65504.0, 6.103515625e-05) == f16);
        LAB_CHECK("1e5 is past 65504, where f16 overflows: bf16",
                  choose_low_dtype(1e5, 0.01) == bf16);
        LAB_CHECK("1e-6 is below f16's smallest normal 6.1e-5, an f16 subnormal with few bits left: bf16 "
                  "(mistake: taking the smallest subnormal as the lower limit)",
                  choose_low_dtype(10.0, 1e-6) == bf16);
        LAB_CHECK("1e39 is past bf16's largest number 3.4e38: f32",
                  choose_low_dtype(1e39, 1.0) == f32);
        LAB_CHECK("1e-39 is below bf16's smallest normal 1.2e-38: f32 (mistake: taking the smallest subnormal as the lower limit)",
                  choose_low_dtype(1.0, 1e-39) == f32);
    }
}
