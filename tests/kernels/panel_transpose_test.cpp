// GEMM packing's transpose: the plain version on a small known case, and the AVX2 version bit
// for bit against it (random bit patterns, NaN payloads included) over panel shapes that leave
// partial 8 x 8 blocks in both directions; and the widening transpose of f16/bf16 rows the same way.
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

namespace {

// The fast version against the reference over many panel shapes. Rows start `misalign` 16-bit
// units into the buffer: the bf16-pair packing reads 32-bit words at any bf16.
template <class Word>
void check_fast_matches_reference(std::uint32_t seed, std::int64_t misalign)
{
    CAPTURE(seed);
    CAPTURE(misalign);
    std::mt19937 random(seed);
    for (const std::int64_t width : {6, 8, 16, 32})
        for (const std::int64_t live : {0, 1, 5, 6, 7, 8, 9, 15, 16, 17, 31, 32})
            for (const std::int64_t k : {0, 1, 7, 8, 9, 31, 64, 100}) {
                if (live > width) continue;
                CAPTURE(width);
                CAPTURE(live);
                CAPTURE(k);
                const std::int64_t ld = 2 * (k + 3);  // in 16-bit units: rows apart, as in a wider matrix
                std::vector<std::uint16_t> source(std::size_t(live * ld + misalign));
                for (std::uint16_t& v : source) v = std::uint16_t(random());  // any bits, NaN payloads included
                std::vector<const Word*> rows;
                for (std::int64_t r = 0; r < live; ++r) rows.push_back(reinterpret_cast<const Word*>(source.data() + misalign + r * ld));
                std::vector<Word> fast(std::size_t(k * width), Word(1)), reference(std::size_t(k * width), Word(2));
                blocked::transpose_into_panel(rows.data(), live, k, width, fast.data());
                blocked::transpose_into_panel_reference(rows.data(), live, k, width, reference.data());
                // (an empty panel has no data pointer, which memcmp must not get)
                CHECK((fast.empty() || std::memcmp(fast.data(), reference.data(), fast.size() * sizeof(Word)) == 0));
            }
}

}  // namespace

TEST_CASE("transpose_into_panel gives the reference's bits, for f32 and for bf16 pairs at any bf16")
{
    MESSAGE("features in use: " << cpu_features().str());
    check_fast_matches_reference<float>(7, 0);
    check_fast_matches_reference<std::uint32_t>(8, 0);
    check_fast_matches_reference<std::uint32_t>(9, 1);
}

TEST_CASE("transpose_into_panel against the definition: 8 x 8 blocks, leftover rows and steps, zero rows")
{
    // 13 live rows of a 16-wide panel, 17 steps: one 8 x 8 block row, the rest element by element.
    // The panel starts at 9, so a slot the fast version missed would show.
    const std::uint32_t seed = 7;
    CAPTURE(seed);
    std::mt19937 random(seed);
    std::vector<float> source(16 * 20);
    for (float& v : source) v = float(random() % 1000);
    std::vector<const float*> rows;
    for (std::int64_t r = 0; r < 13; ++r) rows.push_back(source.data() + r * 20);
    std::vector<float> panel(std::size_t(17 * 16), 9.0f);
    blocked::transpose_into_panel(rows.data(), 13, 17, 16, panel.data());
    for (std::int64_t p = 0; p < 17; ++p)
        for (std::int64_t r = 0; r < 16; ++r) {
            CAPTURE(p);
            CAPTURE(r);
            CHECK(panel[std::size_t(p * 16 + r)] == (r < 13 ? rows[std::size_t(r)][p] : 0.0f));
        }
}

namespace {

// The widening transpose (f16/bf16 rows into an f32 panel) against its reference, bit for bit,
// over the same shapes; any 16-bit patterns, so NaNs (made quiet), infinities and subnormals occur.
template <class T>
void check_widened_matches_reference(std::uint32_t seed)
{
    CAPTURE(seed);
    std::mt19937 random(seed);
    for (const std::int64_t width : {6, 8, 16, 32})
        for (const std::int64_t live : {0, 1, 7, 8, 9, 16, 17, 32})
            for (const std::int64_t k : {0, 1, 7, 8, 9, 64, 100}) {
                if (live > width) continue;
                CAPTURE(width);
                CAPTURE(live);
                CAPTURE(k);
                const std::int64_t ld = k + 5;
                std::vector<T> source(std::size_t(live * ld + 1));
                for (T& v : source) v = T::from_bits(std::uint16_t(random()));
                std::vector<const T*> rows;
                for (std::int64_t r = 0; r < live; ++r) rows.push_back(source.data() + 1 + r * ld);  // rows at odd 16-bit offsets
                std::vector<float> fast(std::size_t(k * width), 1.0f), reference(std::size_t(k * width), 2.0f);
                blocked::transpose_widened_into_panel(rows.data(), live, k, width, fast.data());
                blocked::transpose_widened_into_panel_reference(rows.data(), live, k, width, reference.data());
                CHECK((fast.empty() || std::memcmp(fast.data(), reference.data(), fast.size() * sizeof(float)) == 0));
            }
}

}  // namespace

TEST_CASE("transpose_widened_into_panel widens f16 and bf16 rows exactly, the fast version bit for bit with the reference")
{
    const tinyamp::BFloat16 bf[] = {tinyamp::BFloat16(1.5f), tinyamp::BFloat16::from_bits(0x7f81)};  // 1.5, a signalling NaN
    const tinyamp::Half hf[] = {tinyamp::Half(-2.0f), tinyamp::Half::from_bits(0x0001)};           // -2, the smallest subnormal
    const tinyamp::BFloat16* bf_rows[] = {bf};
    const tinyamp::Half* hf_rows[] = {hf};
    std::vector<float> panel(2 * 2, -1.0f);
    blocked::transpose_widened_into_panel_reference(bf_rows, 1, 2, 2, panel.data());
    CHECK(panel[0] == 1.5f);
    CHECK(std::bit_cast<std::uint32_t>(panel[2]) == 0x7fc10000u);  // quiet, payload kept
    CHECK(panel[1] == 0.0f);
    blocked::transpose_widened_into_panel_reference(hf_rows, 1, 2, 2, panel.data());
    CHECK(panel[0] == -2.0f);
    CHECK(panel[2] == 0x1p-24f);
    check_widened_matches_reference<tinyamp::BFloat16>(11);
    check_widened_matches_reference<tinyamp::Half>(12);
}
