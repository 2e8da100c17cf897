// Lab 17's checks. Run them with:  build/lessons/lab_17  (or build/lessons/labs -ts=lab17)
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "lessons/17_fp8_formats/lab.h"

using namespace tinyamp;
using namespace tinyamp::lab17;

TEST_SUITE("lab17")
{
    TEST_CASE("lab 17.1: relative_error_bound is half the gap after 1")
    {
        CHECK(relative_error_bound(f8e4m3fn) == 0.0625);   // 3 mantissa bits: 2^-4
        CHECK(relative_error_bound(f8e5m2) == 0.125);      // 2 mantissa bits: 2^-3, twice E4M3's
        CHECK(relative_error_bound(f16) == std::ldexp(1.0, -11));
        CHECK(relative_error_bound(bf16) == std::ldexp(1.0, -8));
        // 1.0625 is halfway between E4M3's 1 and 1.125: it rounds (to even) to 1, off by the bound.
        CHECK(std::abs(scalar_tensor(1.0625, f8e4m3fn).item() - 1.0625) / 1.0625 <= relative_error_bound(f8e4m3fn));
        CHECK(std::abs(scalar_tensor(0.3, f8e5m2).item() - 0.3) / 0.3 <= relative_error_bound(f8e5m2));
    }

    TEST_CASE("lab 17.2: range_binades from the layout of the bits")
    {
        using minifloat::Specials;
        CHECK(range_binades(4, 3, 7, Specials::fn) == doctest::Approx(std::log2(448.0 / std::ldexp(1.0, -9))));     // 17.807
        CHECK(range_binades(5, 2, 15, Specials::ieee) == doctest::Approx(std::log2(57344.0 / std::ldexp(1.0, -16))));  // 31.807
        CHECK(range_binades(2, 1, 1, Specials::finite) == doctest::Approx(std::log2(6.0 / 0.5)));                    // E2M1: 3.585
        CHECK(range_binades(5, 10, 15, Specials::ieee) == doctest::Approx(std::log2(65504.0 / std::ldexp(1.0, -24))));  // f16
        // The bias slides the window; it does not widen it.
        CHECK(range_binades(4, 3, 11, Specials::fn) == doctest::Approx(range_binades(4, 3, 7, Specials::fn)));
        // E4M3 read as an IEEE format (as the older E4M3 proposals did) would stop at 240 and lose a binade.
        CHECK(range_binades(4, 3, 7, Specials::ieee) == doctest::Approx(std::log2(240.0 / std::ldexp(1.0, -9))));
        CHECK(range_binades(4, 3, 7, Specials::fn) == doctest::Approx(std::log2(traits(f8e4m3fn).max / traits(f8e4m3fn).min_subnormal)));
    }

    TEST_CASE("lab 17.3: flushed_share counts what the cast turns into 0")
    {
        // E4M3's smallest number is 2^-9 = 0.00195; at or below half of it, 0.000977, a value becomes 0.
        const Tensor a = tensor({1e-3, 9.7e-4, 1e-2, 0.0, 1.0, 2e-3});
        CHECK(flushed_share(a, f8e4m3fn) == doctest::Approx(0.2));  // 9.7e-4 of the 5 nonzero values
        CHECK(flushed_share(a, f8e5m2) == 0.0);                      // E5M2 reaches 2^-16
        const Tensor g = tensor({1e-6, -1e-5, 1e-4});
        CHECK(flushed_share(g, f8e4m3fn) == 1.0);
        CHECK(flushed_share(g, f8e5m2) == doctest::Approx(1.0 / 3));  // 1e-6 is below 2^-17 = 7.6e-6
        CHECK(flushed_share(tensor({1e-9, std::numeric_limits<double>::infinity()}), f8e5m2) == 1.0);  // inf is left out
        CHECK(flushed_share(zeros({4}), f8e4m3fn) == 0.0);
        CHECK(flushed_share(tensor({1e-9}), f16) == 1.0);  // any dtype to() takes
    }

    TEST_CASE("lab 17.4: fp8_format_for picks E4M3 when the values fit its window")
    {
        CHECK(fp8_format_for(tensor({0.01, -0.5, 3.0, 0.0}), 0.0) == f8e4m3fn);         // 8.2 binades: activations
        CHECK(fp8_format_for(tensor({1e-9, 1e-3}), 0.0) == f8e5m2);                    // 19.9 binades: gradients
        CHECK(fp8_format_for(tensor({1.0, std::ldexp(1.0, -17)}), 0.0) == f8e4m3fn);   // 17 <= 17.807
        CHECK(fp8_format_for(tensor({1.0, std::ldexp(1.0, -18)}), 0.0) == f8e5m2);     // 18 > 17.807
        CHECK(fp8_format_for(tensor({1.0, std::ldexp(1.0, -18)}), 0.5) == f8e4m3fn);   // 1 of 2 outside: a half is allowed
        std::vector<double> mostly_ones(99, 1.0);
        mostly_ones.push_back(std::ldexp(1.0, -30));                                   // one tiny value in 100
        CHECK(fp8_format_for(tensor(mostly_ones, {100}), 0.01) == f8e4m3fn);
        CHECK(fp8_format_for(tensor(mostly_ones, {100}), 0.0) == f8e5m2);
        CHECK(fp8_format_for(tensor({5.0, 5.0, std::numeric_limits<double>::infinity()}), 0.0) == f8e4m3fn);  // inf left out
        CHECK(fp8_format_for(zeros({3}), 0.0) == f8e4m3fn);
    }
}
