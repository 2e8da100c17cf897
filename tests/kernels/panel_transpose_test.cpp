// GEMM packing's transpose: the plain version on a small known case, and the AVX2 version bit
// for bit against it (random bit patterns, NaN payloads included) over panel shapes that leave
// partial 8 x 8 blocks in both directions.
#include <doctest/doctest.h>

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/panel_transpose.h"

using namespace tinyamp::kernels::cpu;

TEST_CASE("transpose_into_panel_reference lays rows side by side and zero-fills the missing ones")
{
    const std::vector<float> row0 = {1, 2, 3}, row1 = {4, 5, 6};
    const std::array<const float*, 2> rows = {row0.data(), row1.data()};
    std::vector<float> panel(3 * 4, -1.0f);
    blocked::transpose_into_panel_reference(rows.data(), 2, 3, 4, panel.data());
    CHECK(panel == std::vector<float>{1, 4, 0, 0, 2, 5, 0, 0, 3, 6, 0, 0});
}

TEST_CASE("transpose_into_panel gives the reference's bits")
{
    MESSAGE("features in use: " << cpu_features().str());
    const std::uint32_t seed = 7;
    CAPTURE(seed);
    std::mt19937 random(seed);
    for (const std::int64_t width : {6, 8, 16, 32})
        for (const std::int64_t live : {0, 1, 5, 6, 7, 8, 9, 15, 16, 17, 31, 32})
            for (const std::int64_t k : {0, 1, 7, 8, 9, 31, 64, 100}) {
                if (live > width) continue;
                CAPTURE(width);
                CAPTURE(live);
                CAPTURE(k);
                const std::int64_t ld = k + 3;  // rows apart in memory, as in a wider matrix
                std::vector<float> source(std::size_t(live * ld));
                for (float& v : source) v = std::bit_cast<float>(std::uint32_t(random()));
                std::vector<const float*> rows;
                for (std::int64_t r = 0; r < live; ++r) rows.push_back(source.data() + r * ld);
                std::vector<float> fast(std::size_t(k * width), 1.0f), reference(std::size_t(k * width), 2.0f);
                blocked::transpose_into_panel(rows.data(), live, k, width, fast.data());
                blocked::transpose_into_panel_reference(rows.data(), live, k, width, reference.data());
                CHECK(std::memcmp(fast.data(), reference.data(), fast.size() * sizeof(float)) == 0);
            }
}
