// Lab 19's checks. Run them with:  build/lessons/lab_19  (or build/lessons/labs -ts=lab19)
#include <doctest/doctest.h>

#include <vector>

#include "lessons/19_block_scaling/lab.h"

using namespace tinyamp;
using namespace tinyamp::lab19;

namespace {

bool approx_equal(const std::vector<double>& got, const std::vector<double>& want)
{
    if (got.size() != want.size()) return false;
    for (std::size_t i = 0; i < got.size(); ++i)
        if (got[i] != doctest::Approx(want[i]).epsilon(1e-6)) return false;
    return true;
}

// `n` copies of `fill` with `head` written over the first values.
std::vector<double> block(std::size_t n, double fill, const std::vector<double>& head)
{
    std::vector<double> v(n, fill);
    for (std::size_t i = 0; i < head.size(); ++i) v[i] = head[i];
    return v;
}

}  // namespace

TEST_SUITE("lab19")
{
    TEST_CASE("lab 19.1: per_tensor_round_trip: one E2M1 scale cannot hold a 200x outlier; one E4M3 scale can")
    {
        const std::vector<double> x{200, 1, 0.5, -3};
        // E2M1: scale 6 / 200 = 0.03; 3 * 0.03 = 0.09 is below 0.25, half of E2M1's smallest value 0.5.
        CHECK(approx_equal(per_tensor_round_trip(x, minifloat::f4e2m1), {200, 0, 0, 0}));
        // E4M3: scale 448 / 200 = 2.24; 1 * 2.24 rounds to 2.25, 0.5 * 2.24 to 1.125, 3 * 2.24 = 6.72 to 6.5.
        CHECK(approx_equal(per_tensor_round_trip(x, minifloat::f8e4m3fn), {200, 2.25 / 2.24, 1.125 / 2.24, -6.5 / 2.24}));
        CHECK(per_tensor_round_trip({0, 0}, minifloat::f4e2m1) == std::vector<double>{0, 0});
    }

    TEST_CASE("lab 19.2: mx_round_trip: a power of two per block of 32; FLOOR saturates, RCEIL does not")
    {
        // Block 1: amax 6 -> scale 2^(2 - 2) = 1, E2M1's own grid: 0.2 flushes, 1.3 rounds to 1.5.
        // Block 2: amax 7 -> FLOOR 2^0: 7 saturates at 6. RCEIL: 7 / 6 rounded up to 2: 3.5 ties to 4, so 8.
        std::vector<double> x = block(32, 0.5, {6, 0.2, 1.3});
        const std::vector<double> second = block(32, 1.0, {7});
        x.insert(x.end(), second.begin(), second.end());
        const std::vector<double> fl = mx_round_trip(x, minifloat::f4e2m1, amp::ScaleCalculationMode::floor);
        const std::vector<double> rc = mx_round_trip(x, minifloat::f4e2m1, amp::ScaleCalculationMode::rceil);
        REQUIRE(fl.size() == 64);
        CHECK(approx_equal({fl[0], fl[1], fl[2], fl[3]}, {6, 0, 1.5, 0.5}));
        CHECK(fl[32] == 6.0);
        CHECK(fl[33] == 1.0);
        CHECK(rc[32] == 8.0);
        CHECK(rc[33] == 1.0);
        // An outlier costs its own block: 100 in a block of ones (scale 2^(6 - 2) = 16) flushes them,
        // and the next block of ones is untouched.
        std::vector<double> y = block(32, 1.0, {100});
        y.resize(64, 1.0);
        const std::vector<double> out = mx_round_trip(y, minifloat::f4e2m1, amp::ScaleCalculationMode::floor);
        CHECK(out[0] == 96.0);   // 100 / 16 = 6.25 saturates at 6
        CHECK(out[1] == 0.0);    // 1 / 16 is below E2M1's 0.25
        CHECK(out[32] == 1.0);   // the next block: amax 1, scale 2^-2, exact
        // MXFP8 (E4M3 elements) keeps the ones next to the outlier: 1 / 2^(6 - 8) = 4 is exact in E4M3.
        CHECK(mx_round_trip(y, minifloat::f8e4m3fn, amp::ScaleCalculationMode::floor)[1] == 1.0);
    }

    TEST_CASE("lab 19.3: nvfp4_round_trip: an f32 tensor scale times an E4M3 scale per 16")
    {
        // Tensor amax 6: t = 6 / 2688 = 1/448. Block 1's scale (6 / 6) / t = 448 is exact: E2M1's own grid.
        // Block 2 (ones): (1 / 6) / t = 74.67 rounds to the E4M3 value 72, so 1 becomes 6 * 72 / 448 = 27/28.
        std::vector<double> x = block(16, 0.5, {6, 0.2, 1.3});
        x.resize(32, 1.0);
        const std::vector<double> out = nvfp4_round_trip(x);
        REQUIRE(out.size() == 32);
        CHECK(approx_equal({out[0], out[1], out[2], out[3]}, {6, 0, 1.5, 0.5}));
        CHECK(out[16] == doctest::Approx(27.0 / 28.0).epsilon(1e-6));
        // A 200x outlier costs its block of 16, not more: the next block keeps its ones (as 27/28).
        std::vector<double> y = block(16, 1.0, {200});
        y.resize(32, 1.0);
        const std::vector<double> kept = nvfp4_round_trip(y);
        CHECK(kept[1] == 0.0);
        CHECK(kept[16] == doctest::Approx(1.0).epsilon(0.05));
    }
}
