// Lab 11's checks. Run them with:  scripts/lab check 11
#include <cmath>
#include <limits>
#include <vector>

#include "lessons/11_gradient_underflow/lab.h"
#include "lessons/support/lab_checks.h"

using namespace tinyamp;
using namespace tinyamp::lab11;

TEST_SUITE("lab11")
{
    TEST_CASE("lab 11.1: f16_underflow_share counts what f16 rounds to 0")
    {
        // f16's smallest number is 2^-24 = 5.96e-8; below half of it, 2^-25 = 2.98e-8, a value becomes 0.
        const Tensor g = tensor({1e-3, 1e-8, 3e-8, 2.9e-8, 0.0, 1.0});
        LAB_CHECK("of the 5 nonzero values, 1e-8 and 2.9e-8 become 0 in f16: a share of 2/5 = 0.4",
                  f16_underflow_share(g) == doctest::Approx(0.4));
        LAB_CHECK("the share is what trace::compute_stats(values).f16_underflow reports",
                  f16_underflow_share(g) == doctest::Approx(trace::compute_stats(g).f16_underflow));
        LAB_CHECK("3e-8 is below 2^-24 but above 2^-25: f16 rounds it up to 2^-24, so nothing is lost "
                  "(mistake: comparing with f16's smallest subnormal instead of rounding to f16)",
                  f16_underflow_share(tensor({3e-8})) == 0.0);
        LAB_CHECK("the inf is left out: the only finite nonzero value, 1e-9, is lost, so the share is 1",
                  f16_underflow_share(tensor({1e-9, std::numeric_limits<double>::infinity()})) == 1.0);
        LAB_CHECK("a zero was 0 before f16 too: it is not a lost value, and 1e-3 survives, so the share is 0 "
                  "(mistake: counting zeros as values f16 loses)",
                  f16_underflow_share(tensor({1e-3, 0.0, 0.0, 0.0})) == 0.0);
        LAB_CHECK("no nonzero values, nothing to lose: the share is 0 (mistake: counting zeros as values f16 loses)",
                  f16_underflow_share(zeros({4})) == 0.0);
    }

    TEST_CASE("lab 11.2: log2_histogram bins by power of two")
    {
        const Tensor g = tensor({1.0, 1.5, 0.25, 0.3, std::ldexp(1.0, -30), 0.0, -4.0});
        const std::vector<std::int64_t> h = log2_histogram(g, -3, 3);  // bins for 2^-3 .. 2^2
        LAB_CHECK("one bin per power of two from 2^-3 to 2^2: hi - lo = 6 bins",
                  h.size() == 6);
        LAB_CHECK("0.25 and 0.3 are both in [2^-2, 2^-1) and -4 counts by its magnitude; 2^-30 is clamped into the "
                  "first bin and 0 is left out (mistake: truncating log2 toward zero instead of taking its floor)",
                  h == std::vector<std::int64_t>{1, 2, 0, 2, 0, 1});
        LAB_CHECK("2^-25 and 2^-24 are exact powers of two: each is the first value of its own bin",
                  log2_histogram(tensor({std::ldexp(1.0, -25), std::ldexp(1.0, -24)}), -26, -23) ==
                      std::vector<std::int64_t>{0, 1, 1});
    }

    TEST_CASE("lab 11.3: smallest_saving_scale finds the loss scale that saves the small values")
    {
        const Tensor g = tensor({1e-9, 1e-6, 1e-3});
        LAB_CHECK("32 * 1e-9 = 3.2e-8 is above 2^-25 and survives; 16 * 1e-9 = 1.6e-8 does not",
                  smallest_saving_scale(g, 0.0) == 32.0);
        LAB_CHECK("at S = 1 only 1e-9 of the 3 values is lost, within a share of a half: S = 1 is enough",
                  smallest_saving_scale(g, 0.5) == 1.0);
        LAB_CHECK("1e-12 needs S = 32768 (2^15) to reach 2^-25, and 32768 * 1 still fits f16",
                  smallest_saving_scale(tensor({1e-12, 1.0}), 0.0) == 32768.0);
        {
            INFO("1e-12 needs S = 32768, but 1000 overflows f16 from S = 128 on: no single scale fits both, so it throws");
            CHECK_THROWS_AS(smallest_saving_scale(tensor({1e-12, 1000.0}), 0.0), tinyamp::Error);
        }
        {
            INFO("1e-9 is saved at S = 32, but 32 * 2048 = 65536 is past 65504 and overflows f16: a scale must fit the "
                 "largest value too, so it throws (mistake: returning a scale that overflows the largest value)");
            CHECK_THROWS_AS(smallest_saving_scale(tensor({1e-9, 2048.0}), 0.0), tinyamp::Error);
        }
    }
}
