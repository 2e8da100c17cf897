// torch.count_nonzero's loop (kernels/cpu/nonzero_count.h): every tier and every dtype against the
// plain `x != 0` count, the float cases that a bit test could get wrong (-0, NaN, infinities,
// the smallest subnormals), lengths around the vector widths, and the threads' split.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/nonzero_count.h"
#include "tinyamp/support/parallel.h"

namespace cpu = tinyamp::kernels::cpu;
using tinyamp::BFloat16;
using tinyamp::Half;

namespace {

std::vector<cpu::CountTier> tiers_here()
{
    const cpu::CpuFeatures f = cpu::detect_cpu_features();
    std::vector<cpu::CountTier> tiers{cpu::CountTier::portable};
    if (f.avx2) tiers.push_back(cpu::CountTier::avx2);
    if (f.avx512f) tiers.push_back(cpu::CountTier::avx512);
    return tiers;
}

// n values, about a third of them zero (half of those -0), the rest drawn from `specials` and
// small normals.
std::vector<float> mixed_values(std::int64_t n, unsigned seed)
{
    const float specials[] = {std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::quiet_NaN(),
                              std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                              std::numeric_limits<float>::denorm_min(), -std::numeric_limits<float>::denorm_min(), 1e-30f, -2.5f};
    std::mt19937 rng(seed);
    std::vector<float> x(static_cast<std::size_t>(n));
    for (float& v : x) {
        const unsigned pick = rng() % 12;
        v = pick < 2 ? 0.0f : pick < 4 ? -0.0f : pick < 8 ? specials[rng() % 8] : float(rng() % 1000) - 500.0f;
    }
    return x;
}

}  // namespace

TEST_CASE("count_nonzero counts -0 as zero and NaN as nonzero, on every tier this CPU has")
{
    const float x[] = {0.0f, -0.0f, std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::denorm_min(), -1.0f};
    for (cpu::CountTier tier : tiers_here()) {
        CAPTURE(int(tier));
        CHECK(cpu::count_nonzero_on(tier, x, 5) == 3);
        CHECK(cpu::count_nonzero_on(tier, x, 2) == 0);
        CHECK(cpu::count_nonzero_on(tier, x, 0) == 0);
    }
}

TEST_CASE("count_nonzero's tiers equal the plain count at every length around the vector widths")
{
    const std::vector<float> x = mixed_values(300, 1);
    for (cpu::CountTier tier : tiers_here())
        for (std::int64_t n = 0; n <= 300; ++n) {
            CAPTURE(int(tier));
            CAPTURE(n);
            REQUIRE(cpu::count_nonzero_on(tier, x.data(), n) == cpu::reference::count_nonzero(x.data(), n));
        }
}

TEST_CASE("count_nonzero on every dtype equals the plain count, on one thread and split between two")
{
    const std::int64_t n = 100'003;  // past two parts of worker_pool.h's grain, with a tail
    const std::vector<float> f32 = mixed_values(n, 2);
    std::vector<double> f64(f32.begin(), f32.end());
    std::vector<Half> f16;
    std::vector<BFloat16> bf16;
    std::vector<std::int64_t> i64;
    std::vector<char> flags;  // bool storage without std::vector<bool>'s bit packing
    for (float v : f32) {
        f16.push_back(Half(v));
        bf16.push_back(BFloat16(v));
        i64.push_back(std::isfinite(v) ? std::int64_t(v) : 7);
        flags.push_back(v != 0.0f);
    }
    const auto* b = reinterpret_cast<const bool*>(flags.data());
    const int threads = tinyamp::get_num_threads();
    for (int t : {1, 2}) {
        CAPTURE(t);
        tinyamp::set_num_threads(t);
        CHECK(cpu::count_nonzero(f32.data(), n) == cpu::reference::count_nonzero(f32.data(), n));
        CHECK(cpu::count_nonzero(f64.data(), n) == cpu::reference::count_nonzero(f64.data(), n));
        CHECK(cpu::count_nonzero(f16.data(), n) == cpu::reference::count_nonzero(f16.data(), n));
        CHECK(cpu::count_nonzero(bf16.data(), n) == cpu::reference::count_nonzero(bf16.data(), n));
        CHECK(cpu::count_nonzero(i64.data(), n) == cpu::reference::count_nonzero(i64.data(), n));
        CHECK(cpu::count_nonzero(b, n) == cpu::reference::count_nonzero(b, n));
    }
    tinyamp::set_num_threads(threads);
    // The counts are not all equal by accident: the zeros are where they were put.
    CHECK(cpu::reference::count_nonzero(f32.data(), n) == std::int64_t(std::count(flags.begin(), flags.end(), 1)));
    CHECK(cpu::reference::count_nonzero(f32.data(), n) < n * 3 / 4);
}
