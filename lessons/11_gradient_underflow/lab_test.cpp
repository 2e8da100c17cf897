// Lab 11's checks. Run them with:  build/lessons/lab_11
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "lessons/11_gradient_underflow/lab.h"

using namespace tinyamp;
using namespace tinyamp::lab11;

TEST_SUITE("lab11")
{
    TEST_CASE("lab 11.1: f16_underflow_share counts what f16 rounds to 0")
    {
        // f16's smallest number is 2^-24 = 5.96e-8; below half of it, 2^-25 = 2.98e-8, a value becomes 0.
        const Tensor g = tensor({1e-3, 1e-8, 3e-8, 2.9e-8, 0.0, 1.0});
        CHECK(f16_underflow_share(g) == doctest::Approx(0.4));  // 1e-8 and 2.9e-8 of the 5 nonzero values
        CHECK(f16_underflow_share(g) == doctest::Approx(trace::compute_stats(g).f16_underflow));
        CHECK(f16_underflow_share(tensor({3e-8})) == 0.0);       // just above 2^-25: rounds up to 2^-24
        CHECK(f16_underflow_share(tensor({1e-9, std::numeric_limits<double>::infinity()})) == 1.0);  // inf is left out
        CHECK(f16_underflow_share(zeros({4})) == 0.0);
    }

    TEST_CASE("lab 11.2: log2_histogram bins by power of two")
    {
        const Tensor g = tensor({1.0, 1.5, 0.25, 0.3, std::ldexp(1.0, -30), 0.0, -4.0});
        const std::vector<std::int64_t> h = log2_histogram(g, -3, 3);  // bins for 2^-3 .. 2^2
        CHECK(h.size() == 6);
        CHECK(h == std::vector<std::int64_t>{1, 2, 0, 2, 0, 1});  // 2^-30 clamped into the first bin; 0 left out
        CHECK(log2_histogram(tensor({std::ldexp(1.0, -25), std::ldexp(1.0, -24)}), -26, -23) == std::vector<std::int64_t>{0, 1, 1});
    }

    TEST_CASE("lab 11.3: smallest_saving_scale finds the loss scale that saves the small values")
    {
        const Tensor g = tensor({1e-9, 1e-6, 1e-3});
        CHECK(smallest_saving_scale(g, 0.0) == 32.0);   // 32e-9 = 3.2e-8 is above 2^-25; 16e-9 is not
        CHECK(smallest_saving_scale(g, 0.5) == 1.0);    // 1 of 3 lost is within a half
        CHECK(smallest_saving_scale(tensor({1e-12, 1.0}), 0.0) == 32768.0);
        CHECK_THROWS_AS(smallest_saving_scale(tensor({1e-12, 1000.0}), 0.0), tinyamp::Error);  // 32768 * 1000 overflows
    }
}
