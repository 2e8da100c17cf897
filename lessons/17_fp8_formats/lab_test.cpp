// Lab 17's checks. Run them with:  scripts/lab check 17
#include <cmath>
#include <limits>
#include <vector>

#include "lessons/17_fp8_formats/lab.h"
#include "lessons/support/lab_checks.h"

using namespace tinyamp;
using namespace tinyamp::lab17;

TEST_SUITE("lab17")
{
    TEST_CASE("lab 17.1: relative_error_bound is half the gap after 1")
    {
        LAB_CHECK("E4M3 has 3 mantissa bits: the gap after 1 is 2^-3 and the bound half of it, 2^-4 (mistake: taking the whole "
                  "gap, not half of it)",
                  relative_error_bound(f8e4m3fn) == 0.0625);
        LAB_CHECK("E5M2 has 2 mantissa bits: 2^-3, twice E4M3's bound (mistake: taking the whole gap, not half of it)",
                  relative_error_bound(f8e5m2) == 0.125);
        LAB_CHECK("f16 has 10 mantissa bits: 2^-11", relative_error_bound(f16) == std::ldexp(1.0, -11));
        LAB_CHECK("bf16 has 7 mantissa bits: 2^-8", relative_error_bound(bf16) == std::ldexp(1.0, -8));
        // 1.0625 is halfway between E4M3's 1 and 1.125: it rounds (to even) to 1, off by the bound.
        LAB_CHECK("1.0625 rounds to 1 in E4M3: its error, 1/17, is within the bound",
                  std::abs(scalar_tensor(1.0625, f8e4m3fn).item() - 1.0625) / 1.0625 <= relative_error_bound(f8e4m3fn));
        LAB_CHECK("0.3 rounded to E5M2 is within E5M2's bound",
                  std::abs(scalar_tensor(0.3, f8e5m2).item() - 0.3) / 0.3 <= relative_error_bound(f8e5m2));
    }

    TEST_CASE("lab 17.2: range_binades from the layout of the bits")
    {
        using minifloat::Specials;
        LAB_CHECK("E4M3 (4, 3, 7, fn) spans 448 / 2^-9: 17.807 binades (mistake: taking fn's NaN code for the largest number)",
                  range_binades(4, 3, 7, Specials::fn) == doctest::Approx(std::log2(448.0 / std::ldexp(1.0, -9))));
        LAB_CHECK("E5M2 (5, 2, 15, ieee) spans 57344 / 2^-16: 31.807 binades (mistake: stopping at the smallest normal, not "
                  "the smallest subnormal)",
                  range_binades(5, 2, 15, Specials::ieee) == doctest::Approx(std::log2(57344.0 / std::ldexp(1.0, -16))));
        LAB_CHECK("E2M1 (2, 1, 1, finite) spans 6 / 0.5: 3.585 binades; finite spends no code on inf or NaN",
                  range_binades(2, 1, 1, Specials::finite) == doctest::Approx(std::log2(6.0 / 0.5)));
        LAB_CHECK("f16 (5, 10, 15, ieee) spans 65504 / 2^-24: 40 binades",
                  range_binades(5, 10, 15, Specials::ieee) == doctest::Approx(std::log2(65504.0 / std::ldexp(1.0, -24))));
        LAB_CHECK("the bias slides the window; it does not widen it: bias 11 gives the same width as bias 7",
                  range_binades(4, 3, 11, Specials::fn) == doctest::Approx(range_binades(4, 3, 7, Specials::fn)));
        LAB_CHECK("E4M3 read as an IEEE format (as the older E4M3 proposals did) stops at 240 and loses a binade",
                  range_binades(4, 3, 7, Specials::ieee) == doctest::Approx(std::log2(240.0 / std::ldexp(1.0, -9))));
        LAB_CHECK("E4M3's width is log2(max / min_subnormal) of traits(f8e4m3fn) (mistake: taking fn's NaN code for the "
                  "largest number)",
                  range_binades(4, 3, 7, Specials::fn) ==
                      doctest::Approx(std::log2(traits(f8e4m3fn).max / traits(f8e4m3fn).min_subnormal)));
    }

    TEST_CASE("lab 17.3: flushed_share counts what the cast turns into 0")
    {
        // E4M3's smallest number is 2^-9 = 0.00195; at or below half of it, 0.000977, a value becomes 0.
        const Tensor a = tensor({1e-3, 9.7e-4, 1e-2, 0.0, 1.0, 2e-3});
        LAB_CHECK("in E4M3 only 9.7e-4 (below 2^-10) becomes 0: 1 of the 5 nonzero values; the 0 was 0 before the cast "
                  "(mistake: counting values that were already 0 as flushed)",
                  flushed_share(a, f8e4m3fn) == doctest::Approx(0.2));
        LAB_CHECK("E5M2 reaches 2^-16: none of them becomes 0 (mistake: counting values that were already 0 as flushed)",
                  flushed_share(a, f8e5m2) == 0.0);
        const Tensor g = tensor({1e-6, -1e-5, 1e-4});
        LAB_CHECK("gradient-sized values all become 0 in E4M3", flushed_share(g, f8e4m3fn) == 1.0);
        LAB_CHECK("in E5M2 only 1e-6 becomes 0: it is below 2^-17 = 7.6e-6", flushed_share(g, f8e5m2) == doctest::Approx(1.0 / 3));
        LAB_CHECK("inf is left out: of the finite nonzero values, 1e-9 is the only one, and it becomes 0",
                  flushed_share(tensor({1e-9, std::numeric_limits<double>::infinity()}), f8e5m2) == 1.0);
        LAB_CHECK("no nonzero value: the share is 0 (mistake: counting values that were already 0 as flushed)",
                  flushed_share(zeros({4}), f8e4m3fn) == 0.0);
        LAB_CHECK("any dtype to() takes: 1e-9 becomes 0 in f16 too", flushed_share(tensor({1e-9}), f16) == 1.0);
    }

    TEST_CASE("lab 17.4: fp8_format_for picks E4M3 when the values fit its window")
    {
        LAB_CHECK("activations span 8.2 binades: none is outside E4M3's window, a share of 0 is at most 0 (mistake: requiring "
                  "the share to be below max_share, not at most)",
                  fp8_format_for(tensor({0.01, -0.5, 3.0, 0.0}), 0.0) == f8e4m3fn);
        LAB_CHECK("gradients spanning 19.9 binades need E5M2", fp8_format_for(tensor({1e-9, 1e-3}), 0.0) == f8e5m2);
        LAB_CHECK("2^-17 lies 17 binades below 1: within E4M3's 17.807",
                  fp8_format_for(tensor({1.0, std::ldexp(1.0, -17)}), 0.0) == f8e4m3fn);
        LAB_CHECK("2^-18 lies 18 binades below 1: more than E4M3's 17.807",
                  fp8_format_for(tensor({1.0, std::ldexp(1.0, -18)}), 0.0) == f8e5m2);
        LAB_CHECK("1 of 2 outside is a share of 0.5, and max_share 0.5 allows it (mistake: requiring the share to be below "
                  "max_share, not at most)",
                  fp8_format_for(tensor({1.0, std::ldexp(1.0, -18)}), 0.5) == f8e4m3fn);
        std::vector<double> mostly_ones(99, 1.0);
        mostly_ones.push_back(std::ldexp(1.0, -30));  // one tiny value in 100
        LAB_CHECK("one tiny value in 100 is a share of 0.01, which max_share 0.01 allows",
                  fp8_format_for(tensor(mostly_ones, {100}), 0.01) == f8e4m3fn);
        LAB_CHECK("with max_share 0, the one tiny value in 100 tips it to E5M2",
                  fp8_format_for(tensor(mostly_ones, {100}), 0.0) == f8e5m2);
        LAB_CHECK("inf is left out: the largest finite value sets the window",
                  fp8_format_for(tensor({5.0, 5.0, std::numeric_limits<double>::infinity()}), 0.0) == f8e4m3fn);
        LAB_CHECK("a tensor with no finite nonzero value gets E4M3", fp8_format_for(zeros({3}), 0.0) == f8e4m3fn);
    }
}
