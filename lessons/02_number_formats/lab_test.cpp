// Lab 02's checks. Run them with:  scripts/lab check 02
#include <limits>

#include "lessons/02_number_formats/lab.h"
#include "lessons/support/lab_checks.h"

using namespace tinyamp;
using namespace tinyamp::lab02;

TEST_SUITE("lab02")
{
    TEST_CASE("lab 02.1: round_to rounds like the dtype stores")
    {
        LAB_CHECK("f16's numbers near 1 are 2^-10 = 0.00098 apart, so 1 + 1e-4 rounds to 1 "
                  "(mistake: rounding to f32 whatever the dtype)",
                  round_to(1.0 + 1e-4, f16) == 1.0);
        LAB_CHECK("f32's numbers near 1 are 2^-23 apart: 1 + 1e-4 stays above 1",
                  round_to(1.0 + 1e-4, f32) > 1.0);
        LAB_CHECK("2049 is halfway between f16's 2048 and 2050: a tie goes to the even one, 2048 "
                  "(mistake: rounding to f32 whatever the dtype)",
                  round_to(2049.0, f16) == 2048.0);
        LAB_CHECK("65520 is halfway to 65536, which is past f16's max 65504: it rounds to inf",
                  round_to(65520.0, f16) == std::numeric_limits<double>::infinity());
        LAB_CHECK("1e-8 is below half of f16's smallest subnormal 5.96e-8: it rounds to 0",
                  round_to(1e-8, f16) == 0.0);
    }

    TEST_CASE("lab 02.2: spacing_at gives the gap to the next number")
    {
        LAB_CHECK("f16 stores 10 mantissa bits: its numbers in [1, 2) are 2^-10 apart "
                  "(mistake: counting the implicit bit as a mantissa bit)",
                  spacing_at(1.0, f16) == 0.0009765625);
        LAB_CHECK("bf16 stores 7 mantissa bits: its numbers in [1, 2) are 2^-7 apart "
                  "(mistake: counting the implicit bit as a mantissa bit)",
                  spacing_at(1.0, bf16) == 0.0078125);
        LAB_CHECK("f16's numbers in [2^11, 2^12) are 2^(11 - 10) = 2 apart",
                  spacing_at(2048.0, f16) == 2.0);
        LAB_CHECK("the gap grows with x: at 2048 it is 2048 times the gap at 1 (mistake: using the spacing at 1 for every x)",
                  spacing_at(2048.0, f16) / spacing_at(1.0, f16) == 2048.0);
        LAB_CHECK("3000 lies in [2048, 4096) too: the power of two below x sets the gap, 2 in f16",
                  spacing_at(3000.0, f16) == 2.0);
        LAB_CHECK("f32 stores 23 mantissa bits: its numbers in [1, 2) are 2^-23 apart",
                  spacing_at(1.0, f32) == 1.1920928955078125e-07);
    }

    TEST_CASE("lab 02.3: survives_in tells overflow and underflow apart from rounding")
    {
        LAB_CHECK("1e-8 is below half of f16's smallest subnormal 5.96e-8: it becomes 0 in f16 and does not survive "
                  "(mistake: checking only for overflow)",
                  survives_in(1e-8, f16) == false);
        LAB_CHECK("bf16 reaches down to 9.2e-41: 1e-8 survives in bf16",
                  survives_in(1e-8, bf16) == true);
        LAB_CHECK("1e5 is above f16's max 65504: it becomes inf and does not survive",
                  survives_in(1e5, f16) == false);
        LAB_CHECK("1 + 1e-4 is rounded to 1 in f16, but rounding is not losing the number: it survives "
                  "(mistake: counting a rounded value as lost)",
                  survives_in(1.0 + 1e-4, f16) == true);
        LAB_CHECK("0 is stored exactly: it survives",
                  survives_in(0.0, f16) == true);
    }
}
