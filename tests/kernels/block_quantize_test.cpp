// Block quantization (kernels/cpu/block_quantize.h): round trips within the element format's
// rounding error, the point of block scaling (an outlier costs only its own block), zero and NaN
// blocks, a partial last block, the FP4 packing layout, and the saturated / flushed counts.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/block_quantize.h"
#include "tests/support/expect_error.h"
#include "tinyamp/values/fp4_packing.h"

namespace amp = tinyamp::amp;
namespace mf = tinyamp::minifloat;
using namespace tinyamp::kernels::cpu;
using amp::ScaleCalculationMode;
using tinyamp::ErrorKind;
using tinyamp::test::error_message;

namespace {

// One quantized matrix and its values read back.
struct Quantized {
    std::vector<std::uint8_t> codes, scales;
    std::vector<float> values;
    BlockQuantizeCounts counts;
};

Quantized mx_round_trip(const std::vector<float>& x, std::int64_t rows, std::int64_t k, const amp::MXBlockScaling& recipe)
{
    Quantized q;
    q.codes.assign(std::size_t(rows * code_bytes_per_row(*recipe.element, k)), 0);
    q.scales.assign(std::size_t(rows * blocks_per_row(k, recipe.block_size)), 0);
    q.values.assign(x.size(), 0.0f);
    q.counts = mx_quantize(x.data(), rows, k, recipe, q.codes.data(), q.scales.data());
    mx_dequantize(q.codes.data(), q.scales.data(), rows, k, recipe, q.values.data());
    return q;
}

Quantized nvfp4_round_trip(const std::vector<float>& x, std::int64_t rows, std::int64_t k, float tensor_scale)
{
    const amp::NVFP4BlockScaling recipe;
    Quantized q;
    q.codes.assign(std::size_t(rows * k / 2), 0);
    q.scales.assign(std::size_t(rows * blocks_per_row(k, recipe.block_size)), 0);
    q.values.assign(x.size(), 0.0f);
    q.counts = nvfp4_quantize(x.data(), rows, k, recipe, tensor_scale, q.codes.data(), q.scales.data());
    nvfp4_dequantize(q.codes.data(), q.scales.data(), rows, k, recipe, tensor_scale, q.values.data());
    return q;
}

// Rows of blocks whose magnitudes differ by up to 2^+-20 from block to block (what block scaling
// is for), normal values within a block, both signs.
std::vector<float> random_blocks(std::mt19937& rng, std::int64_t rows, std::int64_t k, int block_size)
{
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::uniform_int_distribution<int> exponent(-20, 20);
    std::vector<float> x(std::size_t(rows * k));
    for (std::int64_t r = 0; r < rows; ++r) {
        for (std::int64_t begin = 0; begin < k; begin += block_size) {
            const int e = exponent(rng);
            for (std::int64_t j = begin; j < std::min(k, begin + block_size); ++j) x[std::size_t(r * k + j)] = std::ldexp(normal(rng), e);
        }
    }
    return x;
}

// An element's value read back, given its block's decoded scale s and x / s as the kernel computes
// it (f32): either saturated (x / s rounds past the element max: to inf or NaN without saturation,
// or to 8 for E2M1, whose tie at 7 goes up) and read back as +-max * s, or within half a step of
// the element format at x / s (relative step eps for normal values, the smallest subnormal below
// them). Returns whether it saturated. \p slack covers NVFP4's f32 multiplication by a non-power of two.
bool check_element(const mf::Format& element, float x, float scaled, float value, double s, double slack)
{
    CAPTURE(x);
    CAPTURE(value);
    CAPTURE(s);
    const bool saturated = element.bits == 4
                               ? std::fabs(scaled) >= 7.0f
                               : !std::isfinite(mf::decode(element, mf::encode(element, scaled, mf::Overflow::non_saturating)));
    if (saturated) {
        CHECK(value == doctest::Approx(std::copysign(element.max * s, double(x))).epsilon(slack + 1e-7));
        return true;
    }
    const double bound = 0.5 * std::max(element.eps * std::fabs(double(x)), element.min_subnormal * s);
    CHECK(std::fabs(double(value) - double(x)) <= bound * (1 + slack) + slack * std::fabs(double(x)));
    return false;
}

}  // namespace

TEST_CASE("block_quantize: MX round trips stay within the element format's rounding, per block")
{
    const std::uint32_t seed = 2211;  // fixed: a failure must replay
    CAPTURE(seed);
    std::mt19937 rng(seed);
    const std::int64_t rows = 5, k = 96;  // 3 blocks of 32 per row
    for (const amp::MXBlockScaling& recipe :
         {amp::MXBlockScaling::mxfp8(ScaleCalculationMode::floor), amp::MXBlockScaling::mxfp8(ScaleCalculationMode::rceil),
          amp::MXBlockScaling::mxfp4(ScaleCalculationMode::floor), amp::MXBlockScaling::mxfp4(ScaleCalculationMode::rceil),
          amp::MXBlockScaling{&mf::f8e5m2, 32, ScaleCalculationMode::floor}}) {
        CAPTURE(recipe.element->name);
        CAPTURE(int(recipe.scale_mode));
        const std::vector<float> x = random_blocks(rng, rows, k, recipe.block_size);
        const Quantized q = mx_round_trip(x, rows, k, recipe);
        std::int64_t saturated = 0;
        for (std::int64_t r = 0; r < rows; ++r) {
            for (std::int64_t j = 0; j < k; ++j) {
                const std::uint8_t scale = q.scales[std::size_t(r * 3 + j / 32)];
                const double s = mf::decode(mf::e8m0, scale);
                const float xj = x[std::size_t(r * k + j)];
                const float scaled = float(double(xj) / s);  // exact: s is a power of two
                saturated += check_element(*recipe.element, xj, scaled, q.values[std::size_t(r * k + j)], s, 0.0);
            }
        }
        CHECK(q.counts.saturated == saturated);
        // RCEIL puts each block's amax at or below the element max: nothing saturates.
        if (recipe.scale_mode == ScaleCalculationMode::rceil) CHECK(saturated == 0);
    }
}

TEST_CASE("block_quantize: NVFP4 round trips stay within E2M1's rounding at each block's scale")
{
    const std::uint32_t seed = 2211;  // fixed: a failure must replay
    CAPTURE(seed);
    std::mt19937 rng(seed);
    const std::int64_t rows = 4, k = 64;  // 4 blocks of 16 per row
    // Magnitudes within 2^+-6 of each other, so no block scale reaches E4M3's clamp at 2^-6.
    std::vector<float> x(std::size_t(rows * k));
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::uniform_int_distribution<int> exponent(-3, 3);
    for (std::int64_t b = 0; b < rows * k / 16; ++b) {
        const int e = exponent(rng);
        for (std::int64_t i = 0; i < 16; ++i) x[std::size_t(b * 16 + i)] = std::ldexp(normal(rng), e);
    }
    float amax = 0.0f;
    for (float v : x) amax = std::max(amax, std::fabs(v));
    const float tensor_scale = amp::nvfp4_tensor_scale(amax);
    const Quantized q = nvfp4_round_trip(x, rows, k, tensor_scale);
    std::int64_t saturated = 0;
    for (std::int64_t i = 0; i < rows * k; ++i) {
        const float s = tensor_scale * float(mf::decode(mf::f8e4m3fn, q.scales[std::size_t(i / 16)]));
        const float xi = x[std::size_t(i)];
        saturated += check_element(mf::f4e2m1, xi, xi / s, q.values[std::size_t(i)], s, 1e-6);
    }
    CHECK(q.counts.saturated == saturated);
}

TEST_CASE("block_quantize: an outlier costs precision only in its own block")
{
    // Block 0: 31 values near 1e-3 and 1000; block 1: 32 values near 1e-3. MXFP8 (FLOOR).
    std::mt19937 rng(22);
    std::uniform_real_distribution<float> small(0.5e-3f, 1.5e-3f);
    std::vector<float> x(64);
    for (float& v : x) v = small(rng);
    x[5] = 1000.0f;
    const Quantized q = mx_round_trip(x, 1, 64, amp::MXBlockScaling::mxfp8());
    // Block 0's scale follows 1000 (2^9 * 1.95: 9 - 8 = 1, 2^1): its small values / 2 < 2^-10,
    // half E4M3's smallest subnormal, so all 31 flush to 0. Block 1 (2^-10 * 1.5 at most: -10 - 8,
    // scale 2^-18) keeps every value to E4M3's relative precision 2^-4.
    CHECK(q.scales[0] == 128);
    CHECK(q.counts.flushed == 31);
    for (int j = 32; j < 64; ++j) {
        CAPTURE(j);
        CHECK(std::fabs(q.values[std::size_t(j)] - x[std::size_t(j)]) <= 0x1p-4 * x[std::size_t(j)]);
    }
    // One scale for the whole tensor (current scaling, 448 / 1000) would lose block 1 too.
    const float one_scale = amp::current_scale(1000.0f, mf::f8e4m3fn);
    for (int j = 32; j < 64; ++j) CHECK(mf::decode(mf::f8e4m3fn, mf::encode(mf::f8e4m3fn, x[std::size_t(j)] * one_scale, mf::Overflow::saturate)) == 0.0);
}

TEST_CASE("block_quantize: zero blocks and NaN blocks")
{
    const std::vector<float> zeros(32, 0.0f);
    const Quantized mx = mx_round_trip(zeros, 1, 32, amp::MXBlockScaling::mxfp4());
    CHECK(mx.scales[0] == 0);  // amax 0: the clamped exponent -127
    for (float v : mx.values) CHECK(v == 0.0f);
    CHECK(mx.counts.saturated == 0);
    CHECK(mx.counts.flushed == 0);
    const Quantized nv = nvfp4_round_trip(std::vector<float>(16, 0.0f), 1, 16, 1.0f);
    CHECK(nv.scales[0] == 0x08);  // the smallest block scale, 2^-6
    for (float v : nv.values) CHECK(v == 0.0f);

    // A NaN makes its block's scale NaN (E8M0 0xFF): the block reads back as NaN, uncounted; the
    // next block is untouched.
    std::vector<float> x(64, 1.0f);
    x[3] = std::numeric_limits<float>::quiet_NaN();
    x[40] = 1e-9f;  // flushed in block 1 (scale 2^-8)
    const Quantized q = mx_round_trip(x, 1, 64, amp::MXBlockScaling::mxfp8());
    CHECK(q.scales[0] == 0xFF);
    for (int j = 0; j < 32; ++j) CHECK(std::isnan(q.values[std::size_t(j)]));
    CHECK(q.values[33] == 1.0f);
    CHECK(q.counts.flushed == 1);
    CHECK(q.counts.saturated == 0);
}

TEST_CASE("block_quantize: a partial last block is scaled by its own amax")
{
    // K = 40, blocks of 32: block 1 holds 8 values, all 0.25 * 1.5 = 0.375 except a 0.5.
    std::vector<float> x(40, 100.0f);
    for (int j = 32; j < 40; ++j) x[std::size_t(j)] = 0.375f;
    x[39] = 0.5f;
    for (const amp::MXBlockScaling& recipe : {amp::MXBlockScaling::mxfp8(), amp::MXBlockScaling::mxfp4()}) {
        CAPTURE(recipe.element->name);
        const Quantized q = mx_round_trip(x, 1, 40, recipe);
        REQUIRE(q.scales.size() == 2);
        CHECK(q.scales[1] == amp::mx_block_scale(0.5f, *recipe.element, recipe.scale_mode));
        // 0.375 and 0.5 are exact in both element formats at that scale.
        for (int j = 32; j < 40; ++j) CHECK(q.values[std::size_t(j)] == x[std::size_t(j)]);
    }
    // NVFP4, K = 24: a block of 16 and one of 8.
    std::vector<float> y(24, 6.0f);
    for (int j = 16; j < 24; ++j) y[std::size_t(j)] = 0.75f;  // block 1: amax 0.75, scale 0.125, 0.75 = 6 * 0.125
    const Quantized nv = nvfp4_round_trip(y, 1, 24, 1.0f);
    REQUIRE(nv.scales.size() == 2);
    CHECK(mf::decode(mf::f8e4m3fn, nv.scales[1]) == 0.125);
    for (int j = 16; j < 24; ++j) CHECK(nv.values[std::size_t(j)] == 0.75f);
}

TEST_CASE("block_quantize: FP4 codes are packed two per byte along K, low nibble first")
{
    // One block per row with amax 6 (scale 2^0): E2M1 codes 0.5 -> 0x1, -1 -> 0xA, 6 -> 0x7, 3 -> 0x5.
    const std::vector<float> x = {0.5f, -1.0f, 6.0f, 3.0f, /* row 1 */ 3.0f, 6.0f, -1.0f, 0.5f};
    const amp::MXBlockScaling recipe{&mf::f4e2m1, 4, ScaleCalculationMode::floor};
    const Quantized q = mx_round_trip(x, 2, 4, recipe);
    REQUIRE(q.codes.size() == 4);  // row stride K / 2 = 2 bytes
    CHECK(q.codes[0] == mf::pack_fp4x2(0x1, 0xA));
    CHECK(q.codes[0] == 0xA1);
    CHECK(q.codes[1] == 0x57);
    CHECK(q.codes[2] == 0x75);
    CHECK(q.codes[3] == 0x1A);
    for (std::size_t j = 0; j < 4; ++j) CHECK(mf::decode(mf::f4e2m1, mf::unpack_fp4(q.codes.data() + 2, j)) == x[4 + j]);
    CHECK(q.values == x);
}

TEST_CASE("block_quantize: saturated and flushed counts, FLOOR against RCEIL")
{
    // One block of 32: 7.5, 1e-6 and thirty 1.0. FLOOR's scale is 2^-6 (floor(log2 7.5) = 2,
    // 2 - 8): 7.5 * 64 = 480 > 448 saturates, 1e-6 * 64 = 6.4e-5 < 2^-10 flushes. RCEIL's is 2^-5:
    // 7.5 * 32 = 240 fits, 1e-6 * 32 still flushes.
    std::vector<float> x(32, 1.0f);
    x[0] = 7.5f;
    x[1] = 1e-6f;
    const Quantized floor = mx_round_trip(x, 1, 32, amp::MXBlockScaling::mxfp8(ScaleCalculationMode::floor));
    CHECK(floor.counts.saturated == 1);
    CHECK(floor.counts.flushed == 1);
    CHECK(floor.values[0] == 7.0f);  // 448 * 2^-6
    const Quantized rceil = mx_round_trip(x, 1, 32, amp::MXBlockScaling::mxfp8(ScaleCalculationMode::rceil));
    CHECK(rceil.counts.saturated == 0);
    CHECK(rceil.counts.flushed == 1);
    CHECK(rceil.values[0] == 7.5f);
}

TEST_CASE("block_quantize: mx_encode's fast path gives the reference's codes and counts")
{
    // Magnitudes over every binade of f32 (subnormals included), zeros, infinities, blocks with one
    // huge value (their small values underflow to 0 when scaled), a NaN block, and a short last
    // block (k = 100 is three blocks of 32 and one of 4).
    std::mt19937_64 rng(2026);
    const std::int64_t rows = 40, k = 100;
    std::vector<float> x(std::size_t(rows * k));
    std::uniform_real_distribution<double> exponent(-149.0, 127.9);
    for (float& v : x) v = float((rng() % 2 ? 1.0 : -1.0) * std::exp2(exponent(rng)));
    for (std::int64_t r = 0; r < rows; ++r) {
        float* row = x.data() + r * k;
        row[rng() % k] = 0.0f;
        if (r % 5 == 0) row[rng() % k] = std::numeric_limits<float>::infinity();
        if (r % 7 == 1) row[rng() % k] = std::numeric_limits<float>::quiet_NaN();
        if (r % 3 == 2)  // a block of small values beside one of 2^100: scaled by 2^-92 or so
            for (std::int64_t j = 32; j < 64; ++j) row[j] = j == 40 ? 0x1p100f : float(std::ldexp(double(rng() % 1000 + 1), -140));
    }
    for (const auto& recipe : {amp::MXBlockScaling::mxfp8(ScaleCalculationMode::floor), amp::MXBlockScaling::mxfp8(ScaleCalculationMode::rceil),
                               amp::MXBlockScaling{&mf::f8e5m2, 32, ScaleCalculationMode::floor}, amp::MXBlockScaling::mxfp4()}) {
        INFO("element " << recipe.element->name << ", mode " << int(recipe.scale_mode));
        std::vector<std::uint8_t> scales(std::size_t(rows * blocks_per_row(k, recipe.block_size)));
        mx_block_scales(x.data(), rows, k, recipe, scales.data());
        const std::size_t code_bytes = std::size_t(rows * code_bytes_per_row(*recipe.element, k));
        std::vector<std::uint8_t> fast(code_bytes, 0xAA), plain(code_bytes, 0x55);
        const BlockQuantizeCounts fast_counts = mx_encode(x.data(), rows, k, recipe, scales.data(), fast.data());
        const BlockQuantizeCounts plain_counts = reference::mx_encode(x.data(), rows, k, recipe, scales.data(), plain.data());
        CHECK(fast == plain);
        CHECK(fast_counts.saturated == plain_counts.saturated);
        CHECK(fast_counts.flushed == plain_counts.flushed);
        CHECK(plain_counts.flushed > 0);  // the inputs reach both counts
        CHECK(plain_counts.saturated > 0);
    }
}

TEST_CASE("block_quantize: bad sizes and scales are refused with a clear error")
{
    std::vector<float> x(66, 1.0f);
    std::vector<std::uint8_t> codes(66), scales(8);
    std::string msg = error_message(
        [&] { mx_quantize(x.data(), 2, 33, amp::MXBlockScaling::mxfp4(), codes.data(), scales.data()); }, ErrorKind::shape);
    CHECK(msg.find("even") != std::string::npos);
    CHECK(msg.find("33") != std::string::npos);
    msg = error_message(
        [&] { nvfp4_quantize(x.data(), 2, 17, amp::NVFP4BlockScaling{}, 1.0f, codes.data(), scales.data()); },
        ErrorKind::shape);
    CHECK(msg.find("17") != std::string::npos);
    CHECK_NOTHROW(mx_quantize(x.data(), 2, 33, amp::MXBlockScaling::mxfp8(), codes.data(), scales.data()));
    error_message([&] { mx_quantize(x.data(), -1, 4, amp::MXBlockScaling::mxfp8(), codes.data(), scales.data()); },
                  ErrorKind::shape);
    error_message([&] { nvfp4_quantize(x.data(), 1, 16, amp::NVFP4BlockScaling{}, 0.0f, codes.data(), scales.data()); },
                  ErrorKind::value);
    error_message([&] { mx_quantize(x.data(), 1, 4, amp::MXBlockScaling{&mf::e8m0, 32, ScaleCalculationMode::floor},
                                    codes.data(), scales.data()); },
                  ErrorKind::dtype);
}
