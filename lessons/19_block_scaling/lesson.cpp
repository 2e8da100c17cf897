// Lesson 19: block scaling (MX, NVFP4). One scale per tensor must fit the tensor's largest value,
// so one outlier pushes every other value down the format's range. E4M3 has 2^17.8 of range and
// shrugs off a 200x outlier; E2M1 (FP4) has only 6 / 0.5 = 12, so FP4 gives each block of 32 values
// its own power-of-two scale (MXFP4), or each block of 16 an E4M3 scale under an f32 tensor scale
// (NVFP4). An outlier then costs its own block, and nothing outside it.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "lessons/support/block_formats.h"
#include "lessons/support/lesson.h"

using namespace tinyamp;

namespace {

constexpr std::int64_t kRows = 4, kK = 1024;  // x is [4, 1024]: one outlier per row of 1024 values
constexpr std::int64_t kBlock = 32;           // MX block

std::string pct(double share) { return lesson::fmt(100 * share) + " %"; }

// Where the outliers go: row r, column 100 + 300 r.
std::int64_t outlier_index(std::int64_t row) { return row * kK + 100 + 300 * row; }
bool is_outlier(std::size_t i)
{
    for (std::int64_t r = 0; r < kRows; ++r)
        if (std::int64_t(i) == outlier_index(r)) return true;
    return false;
}
// Whether element i lies in a block of `block` values (along a row) that holds an outlier.
bool in_outlier_block(std::size_t i, std::int64_t block)
{
    for (std::int64_t r = 0; r < kRows; ++r)
        if (std::int64_t(i) / block == outlier_index(r) / block) return true;
    return false;
}

// The same random [4, 1024] values each time (N(0, 1)), one value per row set to +-outlier (1: none).
Tensor make_x(double outlier)
{
    Generator gen(0);
    const Tensor x = randn({kRows, kK}, f32, gen);
    if (outlier != 1.0)
        for (std::int64_t r = 0; r < kRows; ++r) x.set({r, 100 + 300 * r}, r % 2 ? -outlier : outlier);
    return x;
}

// The values a cast keeps, seen through the library: y = x I^T with the identity I, whose own cast is
// exact (a block holding one 1 and zeros), and one nonzero product per output, so y is the cast of
// x decoded. Returns y and the input's cast as the trace noted it.
struct Seen {
    std::vector<double> kept;
    trace::ScaledCast cast;
};

Seen cast_through_linear(const Tensor& x, const amp::ScalingRecipe& recipe)
{
    std::vector<double> eye(std::size_t(kK * kK), 0.0);
    for (std::int64_t i = 0; i < kK; ++i) eye[std::size_t(i * kK + i)] = 1.0;
    const Tensor identity = tensor(eye, {kK, kK}, f32);
    trace::Trace t;
    Tensor y;
    {
        trace::TraceRecorder recorder(t);
        y = fp8_linear(x, identity, Tensor(), recipe);
    }
    for (const trace::Event& e : t.events())
        if (e.op == "fp8_linear" && e.phase == trace::Phase::forward)
            for (const trace::ScaledCast& c : e.scaled_casts)
                if (c.role == "input") return {y.to_vector(), c};
    throw std::runtime_error("no fp8_linear input cast in the trace");
}

// How a cast treated the ordinary values (every value but the outliers).
struct Damage {
    double error = 0;    // ||kept - x|| / ||x|| over the ordinary values
    double flushed = 0;  // share of the ordinary values that became 0
};

Damage damage(const std::vector<double>& x, const std::vector<double>& kept)
{
    double err = 0, norm = 0, flushed = 0, n = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        if (is_outlier(i)) continue;
        err += (kept[i] - x[i]) * (kept[i] - x[i]);
        norm += x[i] * x[i];
        flushed += x[i] != 0 && kept[i] == 0 ? 1 : 0;
        ++n;
    }
    return {std::sqrt(err / norm), flushed / n};
}

// Whether the values outside the blocks holding an outlier were kept exactly as without outliers.
bool same_outside_outlier_blocks(const std::vector<double>& a, const std::vector<double>& b, std::int64_t block)
{
    for (std::size_t i = 0; i < a.size(); ++i)
        if (!in_outlier_block(i, block) && a[i] != b[i]) return false;
    return true;
}

// The share of the ordinary values in the outlier blocks that became 0.
double flushed_in_outlier_blocks(const std::vector<double>& x, const std::vector<double>& kept, std::int64_t block)
{
    double flushed = 0, n = 0;
    for (std::size_t i = 0; i < x.size(); ++i)
        if (in_outlier_block(i, block) && !is_outlier(i) && x[i] != 0) {
            ++n;
            flushed += kept[i] == 0 ? 1 : 0;
        }
    return n == 0 ? 0 : flushed / n;
}

struct Recipe {
    const char* name;
    amp::ScalingRecipe recipe;
    std::int64_t block;  // values per scale along a row
};

const std::vector<Recipe>& recipes()
{
    static const std::vector<Recipe> all{
        {"E4M3, one scale per tensor", amp::Float8CurrentScaling{}, kK},
        {"MXFP8: E4M3, E8M0 per 32", amp::MXBlockScaling::mxfp8(), kBlock},
        // One power-of-two scale for each row of 1024: with one outlier a row, a tensor scale.
        {"E2M1, one scale per tensor", amp::MXBlockScaling{&minifloat::f4e2m1, int(kK), amp::ScaleCalculationMode::rceil}, kK},
        {"MXFP4: E2M1, E8M0 per 32", amp::MXBlockScaling::mxfp4(), kBlock},
    };
    return all;
}

void step_one_scale_vs_blocks(lesson::Lesson& L)
{
    L.step("One scale per tensor, or one per 32 values");
    L.expect("x is 4096 values of N(0, 1), then the same values with one outlier in every 1024 (+-200, then +-1e5).\n"
             "A tensor scale fits the outlier and pushes everything else down: E4M3 spans 2^-9 .. 448 (2^17.8), so\n"
             "a 200x outlier costs it nothing, but a 1e5 one flushes the smallest values. E2M1 spans 0.5 .. 6 (12x):\n"
             "a 200x outlier flushes nearly every other value. With a scale per block of 32 (MX) the outlier\n"
             "costs its own block only: every value outside it is cast exactly as without the outlier.");
    L.say("Each cast is read through fp8_linear(x, I): the identity's own cast is exact, so the product is the\n"
          "cast of x, decoded (ordinary values = all but the 4 outliers; error = ||kept - x|| / ||x||).");
    const std::vector<double> sizes{1.0, 200.0, 1e5};
    std::map<std::pair<std::size_t, std::size_t>, Seen> seen;  // (recipe, outlier size) -> cast
    std::vector<std::vector<double>> xs;
    for (double size : sizes) xs.push_back(make_x(size).to_vector());
    std::printf("   %-28s %19s %19s %19s\n", "error / flushed", "no outlier", "outlier 200", "outlier 1e5");
    for (std::size_t r = 0; r < recipes().size(); ++r) {
        std::printf("   %-28s", recipes()[r].name);
        for (std::size_t s = 0; s < sizes.size(); ++s) {
            seen[{r, s}] = cast_through_linear(make_x(sizes[s]), recipes()[r].recipe);
            const Damage d = damage(xs[s], seen[{r, s}].kept);
            std::printf(" %9s / %7s", pct(d.error).c_str(), pct(d.flushed).c_str());
        }
        std::printf("\n");
    }
    const auto dmg = [&](std::size_t r, std::size_t s) { return damage(xs[s], seen[{r, s}].kept); };
    L.check(dmg(0, 0).error < 0.04 && dmg(1, 0).error < 0.04, "without outliers both E4M3 casts keep the values within 4 %");
    L.check(dmg(0, 1).error < 1.5 * dmg(0, 0).error && dmg(0, 1).flushed < 0.001,
            "a 200x outlier: one E4M3 tensor scale still keeps the ordinary values (under 0.1 % flushed, error under 1.5x the "
            "outlier-free one)");
    L.check(dmg(2, 1).flushed > 0.95, "a 200x outlier: one E2M1 tensor scale flushes over 95 % of the ordinary values to 0");
    L.check(dmg(0, 2).flushed > 0.10, "a 1e5 outlier: one E4M3 tensor scale flushes over 10 % of the ordinary values");
    bool mx_local = true;
    for (std::size_t s = 1; s < sizes.size(); ++s)
        for (std::size_t r : {std::size_t(1), std::size_t(3)})
            mx_local = mx_local && same_outside_outlier_blocks(seen[{r, s}].kept, seen[{r, 0}].kept, kBlock);
    L.check(mx_local, "MXFP8 and MXFP4 cast every value outside the 4 blocks holding an outlier exactly as without outliers");
    const double lost_in_block = flushed_in_outlier_blocks(xs[1], seen[{3, 1}].kept, kBlock);
    L.check(lost_in_block > 0.9, "inside those blocks MXFP4 loses over 90 % of the other 31 values: the outlier's block pays");
    L.check(dmg(3, 1).error < 0.5 * dmg(2, 1).error,
            "with 200x outliers MXFP4's error over the ordinary values is under half the E2M1 tensor scale's");
    L.key_result("1 outlier (200x) per 1024 values: an E2M1 tensor scale flushes " + pct(dmg(2, 1).flushed) +
                 " of the other values (error " + pct(dmg(2, 1).error) + "); MXFP4 flushes " + pct(dmg(3, 1).flushed) + " (error " +
                 pct(dmg(3, 1).error) + "), the excess over its outlier-free " + pct(dmg(3, 0).flushed) + " all in the 4 outlier blocks");
    L.key_result("a 1e5 outlier: an E4M3 tensor scale flushes " + pct(dmg(0, 2).flushed) + " of the other values, MXFP8 " +
                 pct(dmg(1, 2).flushed));
}

void step_floor_rceil(lesson::Lesson& L)
{
    L.step("Inside an MX block: a power-of-two scale, FLOOR or RCEIL");
    L.expect("An E8M0 scale is a power of two, 2^(code - 127). OCP's FLOOR rule takes 2^(floor(log2 amax) - 2) for E2M1:\n"
             "the block's largest value then lands in [4, 8), above E2M1's 6 when its mantissa is over 1.5, and\n"
             "saturates there. NVIDIA's RCEIL rounds amax / 6 up to a power of two: nothing saturates, at the cost\n"
             "of one binade of resolution for those blocks. The block scales of the outlier-free x sit near 2^-1.");
    const Tensor x = make_x(1.0);
    const std::vector<double> xv = x.to_vector();
    const Seen floor_cast = cast_through_linear(x, amp::MXBlockScaling::mxfp4(amp::ScaleCalculationMode::floor));
    const Seen rceil_cast = cast_through_linear(x, amp::MXBlockScaling::mxfp4(amp::ScaleCalculationMode::rceil));
    for (const auto& [name, s] : {std::pair{"FLOOR", floor_cast}, std::pair{"RCEIL", rceil_cast}}) {
        std::map<int, int> exponents;
        for (std::int16_t e : s.cast.block_scale_exponents) ++exponents[e];
        std::string list;
        for (const auto& [e, n] : exponents) list += (list.empty() ? "" : ", ") + std::to_string(n) + " x 2^" + std::to_string(e);
        const Damage d = damage(xv, s.kept);
        std::printf("   %-6s block scales: %-28s saturated %-9s flushed %-9s error %s\n", name, list.c_str(),
                    pct(s.cast.saturated_share).c_str(), pct(d.flushed).c_str(), pct(d.error).c_str());
    }
    L.check(floor_cast.cast.block_scale_exponents.size() == std::size_t(kRows * kK / kBlock), "one scale per 32 values: 128 block scales");
    L.check(floor_cast.cast.saturated_share > 0 && rceil_cast.cast.saturated_share == 0,
            "FLOOR saturates some block maxima at 6; RCEIL saturates none");
    L.key_result("MXFP4 on N(0, 1): FLOOR saturates " + pct(floor_cast.cast.saturated_share) + ", RCEIL none; errors " +
                 pct(damage(xv, floor_cast.kept).error) + " and " + pct(damage(xv, rceil_cast.kept).error));
}

void step_nvfp4(lesson::Lesson& L)
{
    L.step("NVFP4: E4M3 scales per 16 values, under an f32 tensor scale");
    L.expect("NVFP4 keeps E2M1 elements but gives each block of 16 an E4M3 scale (3 mantissa bits, not a bare\n"
             "power of two), and multiplies all of them by one f32 tensor scale amax / (448 * 6) so that the E4M3\n"
             "scales fit their range. A block's largest value lands close to 6 instead of anywhere in [3, 8), so\n"
             "NVFP4's error is lower than MXFP4's, with and without outliers, and an outlier costs 15 values, not 31.\n"
             "It pays 8 bits per 16 values for its scales (4.5 bits a value) against MXFP4's 8 per 32 (4.25).");
    std::printf("   %-32s %19s %19s\n", "error / flushed", "no outlier", "outlier 200");
    std::vector<Damage> mxfp4_floor, mxfp4_rceil, nvfp4;
    for (double size : {1.0, 200.0}) {
        const Tensor x = make_x(size);
        const std::vector<double> xv = x.to_vector();
        mxfp4_floor.push_back(damage(xv, cast_through_linear(x, amp::MXBlockScaling::mxfp4()).kept));
        mxfp4_rceil.push_back(damage(xv, cast_through_linear(x, amp::MXBlockScaling::mxfp4(amp::ScaleCalculationMode::rceil)).kept));
        nvfp4.push_back(damage(xv, lesson::nvfp4_round_trip(xv)));
    }
    for (const auto& [name, d] : {std::pair{"MXFP4 (FLOOR), 4.25 bits/value", mxfp4_floor}, std::pair{"MXFP4 (RCEIL), 4.25 bits/value", mxfp4_rceil},
                                  std::pair{"NVFP4, 4.5 bits/value", nvfp4}})
        std::printf("   %-32s %9s / %7s %9s / %7s\n", name, pct(d[0].error).c_str(), pct(d[0].flushed).c_str(), pct(d[1].error).c_str(),
                    pct(d[1].flushed).c_str());
    const double bits_mx = minifloat::f4e2m1.bits + double(minifloat::e8m0.bits) / 32;
    const double bits_nv = minifloat::f4e2m1.bits + double(minifloat::f8e4m3fn.bits) / 16;
    L.check(bits_mx == 4.25 && bits_nv == 4.5, "MXFP4 stores 4.25 bits a value, NVFP4 4.5 (plus 32 bits a tensor)");
    L.check(nvfp4[0].error < std::min(mxfp4_floor[0].error, mxfp4_rceil[0].error) &&
                nvfp4[1].error < std::min(mxfp4_floor[1].error, mxfp4_rceil[1].error),
            "NVFP4's error is below both MXFP4 rules', with and without outliers");
    L.check(nvfp4[1].flushed < mxfp4_floor[1].flushed, "with outliers NVFP4 flushes fewer ordinary values than MXFP4 (blocks of 16)");
    L.key_result("FP4 error on N(0, 1): MXFP4 " + pct(mxfp4_floor[0].error) + " (FLOOR), " + pct(mxfp4_rceil[0].error) + " (RCEIL), NVFP4 " +
                 pct(nvfp4[0].error));
}

void run(lesson::Lesson& L)
{
    L.say("Lesson 18 gave each tensor one scale. Here the scale covers a block: MX (OCP Microscaling) gives 32\n"
          "values one E8M0 (power-of-two) scale, NVFP4 gives 16 values one E4M3 scale under an f32 tensor scale.");
    step_one_scale_vs_blocks(L);
    step_floor_rceil(L);
    step_nvfp4(L);
}

const lesson::Registration registered{{19, "block_scaling", "Block scaling: MX and NVFP4",
                                       "one scale per 32 (or 16) values survives outliers that a tensor scale cannot", run}};

}  // namespace
