// The inspector's view of an FP8/FP4 cast: the format ranges as powers of two (from traits), the
// text, the amax history in time order, the histogram's bins and zones, the MX block strip, and
// the facts, on casts written by hand and on ones fp8_linear recorded.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include <tinyamp/tinyamp.h>

#include "visualizer/model/scaled_cast_view.h"

using namespace tinyamp;
using viz::BinZone;

namespace {

bool has_fact(const viz::ScaledCastView& v, const std::string& part)
{
    return std::any_of(v.facts.begin(), v.facts.end(), [&](const std::string& f) { return f.find(part) != std::string::npos; });
}

trace::ScaledCast e4m3_cast()
{
    trace::ScaledCast c;
    c.role = "input";
    c.dtype = f8e4m3fn;
    c.recipe = "delayed";
    c.shape = {32, 64};
    c.amax = 1.0;
    c.scale = 224.0;  // amax * scale = 2^7.81: one binade of headroom under 448
    c.saturated_share = 0;
    c.flushed_share = 0.0005;
    c.amax_history = {1.0f, 0.25f, 0.5f, 0.75f};  // newest first, then oldest to second newest
    c.log2_histogram.assign(61, 0);
    c.log2_histogram[std::size_t(-12 + 40)] = 1;  // 2^-12: under E4M3's smallest subnormal
    c.log2_histogram[std::size_t(3 + 40)] = 500;
    c.log2_histogram[std::size_t(7 + 40)] = 100;
    c.zeros = 10;
    return c;
}

}  // namespace

TEST_CASE("scaled_range: the formats' ranges as log2, from traits")
{
    const viz::ScaledRange e4m3 = viz::scaled_range(f8e4m3fn), e5m2 = viz::scaled_range(f8e5m2), e2m1 = viz::scaled_range(f4e2m1x2);
    CHECK(e4m3.min_subnormal == -9);
    CHECK(e4m3.min_normal == -6);
    CHECK(e4m3.max == doctest::Approx(std::log2(448.0)));  // 8.81
    CHECK(e5m2.min_subnormal == -16);
    CHECK(e5m2.min_normal == -14);
    CHECK(e5m2.max == doctest::Approx(std::log2(57344.0)));  // 15.81
    CHECK(e2m1.min_subnormal == -1);
    CHECK(e2m1.min_normal == 0);
    CHECK(e2m1.max == doctest::Approx(std::log2(6.0)));  // 2.58
}

TEST_CASE("bin_zone: a bin is flushed wholly under the smallest subnormal, saturated wholly above max")
{
    const viz::ScaledRange e4m3 = viz::scaled_range(f8e4m3fn);
    CHECK(viz::bin_zone(-10, e4m3) == BinZone::flushed);  // [2^-10, 2^-9)
    CHECK(viz::bin_zone(-9, e4m3) == BinZone::subnormal);
    CHECK(viz::bin_zone(-7, e4m3) == BinZone::subnormal);
    CHECK(viz::bin_zone(-6, e4m3) == BinZone::normal);
    CHECK(viz::bin_zone(7, e4m3) == BinZone::normal);
    CHECK(viz::bin_zone(8, e4m3) == BinZone::normal);  // [256, 512) holds 448: view_scaled_cast decides
    CHECK(viz::bin_zone(9, e4m3) == BinZone::saturated);
    CHECK(std::string(viz::bin_zone_name(BinZone::flushed)) == "flushed to 0");
}

TEST_CASE("view_scaled_cast: text, history in time order, bins over the data and the format's range, facts")
{
    const viz::ScaledCastView v = viz::view_scaled_cast(e4m3_cast());
    CHECK(v.heading == "input \u2192 f8e4m3fn (delayed scaling)");
    CHECK(v.shape == "[32, 64]");
    CHECK(v.amax == "1");
    CHECK(v.scale == "224");
    CHECK(v.scale_log2 == "7.81");
    CHECK(v.saturated == "0.0%");
    CHECK(v.flushed == "<0.1%");
    CHECK(v.history == std::vector<float>{0.25f, 0.5f, 0.75f, 1.0f});
    CHECK_FALSE(v.is_mx);
    CHECK(v.lowest == -13);  // the data's lowest bin (2^-12), one more
    CHECK(v.highest == 9);   // E4M3's max rounded up (2^8.81 -> 9)
    REQUIRE(v.bins.size() == std::size_t(v.highest - v.lowest + 1));
    std::int64_t counted = 0;
    for (const viz::HistogramBin& b : v.bins) counted += b.count;
    CHECK(counted == 601);
    CHECK(v.bins[std::size_t(-12 - v.lowest)].zone == BinZone::flushed);
    CHECK(v.bins[std::size_t(3 - v.lowest)].count == 500);
    CHECK(v.bins[std::size_t(8 - v.lowest)].zone == BinZone::normal);  // nothing saturated
    CHECK(has_fact(v, "after scaling the largest |x| is 2^7.81, 1.00 binades below f8e4m3fn's max"));
    CHECK(has_fact(v, "<0.1% of the non-zero values became 0 (under 2^-9 after scaling)"));
    CHECK(has_fact(v, "10 elements were 0 before the cast"));
    CHECK_FALSE(has_fact(v, "clamped"));
}

TEST_CASE("view_scaled_cast: an MX cast's block scales as a strip, shaded from the lowest to the highest exponent")
{
    trace::ScaledCast c;
    c.role = "weight";
    c.dtype = f4e2m1x2;
    c.recipe = "mxfp4";
    c.shape = {3, 64};
    c.amax = 6;
    c.saturated_share = 0.25;
    c.blocks_per_row = 2;
    c.block_scale_exponents = {-4, -2, 0, -4, -3, -1};
    c.log2_histogram.assign(61, 0);
    c.log2_histogram[40] = 10;
    const viz::ScaledCastView v = viz::view_scaled_cast(c);
    CHECK(v.is_mx);
    CHECK(v.scale == "1 (per-block scales)");
    CHECK(v.scale_log2 == "-");
    CHECK(v.history.empty());
    CHECK(v.strip.rows == 3);
    CHECK(v.strip.blocks_per_row == 2);
    CHECK(v.strip.lowest == -4);
    CHECK(v.strip.highest == 0);
    CHECK_FALSE(v.strip.truncated);
    CHECK(v.strip.shade(0) == 0.0f);
    CHECK(v.strip.shade(2) == 1.0f);
    CHECK(v.strip.shade(1) == 0.5f);
    CHECK(v.strip.describe(3, 32) == "row 1, block 1 (elements 32..63): scale 2^-4 = 0.0625");
    CHECK(has_fact(v, "block scales from 2^-4 to 2^0 over 6 blocks"));
    CHECK(has_fact(v, "25.0% of the values were clamped to f4e2m1x2's max (6)"));
    CHECK(v.lowest == -2);  // E2M1's smallest subnormal (2^-1), one more
    CHECK(v.bins[std::size_t(2 - v.lowest)].zone == BinZone::saturated);  // [4, 8) holds max 6, and 25% were clamped
    CHECK(v.highest == 3);

    c.shape = {300, 64};  // the trace kept only 3 of the 300 rows' scales
    CHECK(viz::view_scaled_cast(c).strip.truncated);
}

TEST_CASE("view_scaled_cast on fp8_linear's recorded casts: the forward E4M3, the gradient E5M2, MXFP8's blocks")
{
    Generator gen(3);
    const Tensor x = randn({4, 64}, f32, gen).requires_grad_(), w = mul(randn({8, 64}, f32, gen), 0.1).requires_grad_();
    trace::Trace t;
    {
        trace::TraceRecorder record(t);
        sum(fp8_linear(x, w, Tensor(), amp::Float8CurrentScaling{})).backward();
        fp8_linear(x.detach(), w.detach(), Tensor(), amp::MXBlockScaling::mxfp8());
    }
    std::vector<viz::ScaledCastView> views;
    for (const trace::Event& e : t.events())
        for (const trace::ScaledCast& c : e.scaled_casts) views.push_back(viz::view_scaled_cast(c));
    REQUIRE(views.size() == 5);
    CHECK(views[0].heading == "input \u2192 f8e4m3fn (current scaling)");
    CHECK(views[0].scale_log2 != "-");
    // Current scaling puts amax at E4M3's max: no headroom.
    CHECK(has_fact(views[0], "0.00 binades below f8e4m3fn's max"));
    bool gradient = false;
    for (const viz::ScaledCastView& v : views) gradient = gradient || v.heading == "grad_output \u2192 f8e5m2 (current scaling)";
    CHECK(gradient);
    CHECK(views[3].is_mx);
    CHECK(views[3].strip.rows == 4);
    CHECK(views[3].strip.blocks_per_row == 2);
}
