// Lab 19's checks. Run them with:  scripts/lab check 19
#include <vector>

#include "lessons/19_block_scaling/lab.h"
#include "lessons/support/lab_checks.h"

using namespace tinyamp;
using namespace tinyamp::lab19;
using tinyamp::lesson::approx;

namespace {

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
        LAB_CHECK("E2M1: the scale is 6 / 200 = 0.03, and 3 * 0.03 = 0.09 is below 0.25, half of E2M1's smallest value 0.5: "
                  "only the outlier survives, as 200 once the scale is divided out (mistake: returning the scaled values "
                  "without dividing the scale out)",
                  per_tensor_round_trip(x, minifloat::f4e2m1) == approx({200, 0, 0, 0}));
        LAB_CHECK("E4M3: the scale is 448 / 200 = 2.24; 1 * 2.24 rounds to 2.25, 0.5 * 2.24 to 1.125, 3 * 2.24 = 6.72 to 6.5, "
                  "each divided by 2.24 again (mistake: returning the scaled values without dividing the scale out)",
                  per_tensor_round_trip(x, minifloat::f8e4m3fn) == approx({200, 2.25 / 2.24, 1.125 / 2.24, -6.5 / 2.24}));
        LAB_CHECK("all zeros: there is no amax to scale by, and the zeros come back as they are",
                  per_tensor_round_trip({0, 0}, minifloat::f4e2m1) == std::vector<double>{0, 0});
    }

    TEST_CASE("lab 19.2: mx_round_trip: a power of two per block of 32; FLOOR saturates, RCEIL does not")
    {
        // Block 1: 6, 0.2, 1.3 and 29 halves. Block 2: 7 and 31 ones.
        std::vector<double> x = block(32, 0.5, {6, 0.2, 1.3});
        const std::vector<double> second = block(32, 1.0, {7});
        x.insert(x.end(), second.begin(), second.end());
        const std::vector<double> fl = mx_round_trip(x, minifloat::f4e2m1, amp::ScaleCalculationMode::floor);
        const std::vector<double> rc = mx_round_trip(x, minifloat::f4e2m1, amp::ScaleCalculationMode::rceil);
        LAB_REQUIRE("one value out for each value in", fl.size() == 64);
        LAB_REQUIRE("one value out for each value in", rc.size() == 64);
        LAB_CHECK("block 1's amax 6 gives the E8M0 code 127 + 2 - 2, a scale of 2^0 = 1: E2M1's own grid, where 0.2 flushes "
                  "and 1.3 rounds to 1.5 (mistake: forgetting E8M0's bias of 127)",
                  std::vector<double>{fl[0], fl[1], fl[2], fl[3]} == approx({6, 0, 1.5, 0.5}));
        LAB_CHECK("FLOOR: block 2's amax 7 also gets scale 2^0, and 7 saturates at E2M1's max 6", fl[32] == 6.0);
        LAB_CHECK("FLOOR: the ones of block 2 are exact at scale 1", fl[33] == 1.0);
        LAB_CHECK("RCEIL: 7 / 6 rounded up to a power of two is 2; 7 / 2 = 3.5 ties to 4, so 7 comes back as 8", rc[32] == 8.0);
        LAB_CHECK("RCEIL: 1 / 2 = 0.5 is exact in E2M1, so the ones of block 2 stay 1", rc[33] == 1.0);
        // An outlier costs its own block: 100 in a block of ones (scale 2^(6 - 2) = 16) flushes them,
        // and the next block of ones is untouched.
        std::vector<double> y = block(32, 1.0, {100});
        y.resize(64, 1.0);
        const std::vector<double> out = mx_round_trip(y, minifloat::f4e2m1, amp::ScaleCalculationMode::floor);
        LAB_CHECK("100 in a block of ones gets scale 2^(6 - 2) = 16: 100 / 16 = 6.25 saturates at 6, so 96", out[0] == 96.0);
        LAB_CHECK("the ones beside the outlier: 1 / 16 is below E2M1's 0.25, so they flush", out[1] == 0.0);
        LAB_CHECK("the next block has its own scale (amax 1, 2^-2): its ones are exact (mistake: taking the amax of the whole "
                  "tensor, not of the block)",
                  out[32] == 1.0);
        LAB_CHECK("MXFP8 (E4M3 elements) keeps the ones beside the outlier: 1 / 2^(6 - 8) = 4 is exact in E4M3",
                  mx_round_trip(y, minifloat::f8e4m3fn, amp::ScaleCalculationMode::floor)[1] == 1.0);
    }

    TEST_CASE("lab 19.3: nvfp4_round_trip: an f32 tensor scale times an E4M3 scale per 16")
    {
        // Block 1: 6, 0.2, 1.3 and 13 halves. Block 2: 16 ones.
        std::vector<double> x = block(16, 0.5, {6, 0.2, 1.3});
        x.resize(32, 1.0);
        const std::vector<double> out = nvfp4_round_trip(x);
        LAB_REQUIRE("one value out for each value in", out.size() == 32);
        LAB_CHECK("tensor amax 6: t = 6 / 2688 = 1/448, and block 1's E4M3 scale (6 / 6) / t = 448 is exact, so t * 448 = 1: "
                  "E2M1's own grid (mistake: leaving out the f32 tensor scale)",
                  std::vector<double>{out[0], out[1], out[2], out[3]} == approx({6, 0, 1.5, 0.5}));
        LAB_CHECK("block 2 (ones): (1 / 6) / t = 74.67 rounds to the E4M3 value 72, so 1 becomes 6 * 72 / 448 = 27/28 "
                  "(mistake: using MX's blocks of 32 for NVFP4)",
                  out[16] == doctest::Approx(27.0 / 28.0).epsilon(1e-6));
        // A 200x outlier costs its block of 16, not more.
        std::vector<double> y = block(16, 1.0, {200});
        y.resize(32, 1.0);
        const std::vector<double> kept = nvfp4_round_trip(y);
        LAB_CHECK("a 200x outlier flushes the ones of its own block of 16", kept[1] == 0.0);
        LAB_CHECK("the next block of 16 keeps its ones, as 27/28, within 5 % (mistake: using MX's blocks of 32 for NVFP4)",
                  kept[16] == doctest::Approx(1.0).epsilon(0.05));
    }
}
