#include "visualizer/model/scaled_cast_view.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tinyamp::viz {
namespace {

std::string number(double v, const char* format = "%.3g")
{
    char text[48];
    std::snprintf(text, sizeof text, format, v);
    return text;
}

std::string percent(double share)
{
    if (share > 0 && share < 0.001) return "<0.1%";
    return number(100.0 * share, "%.1f%%");
}

std::string power_of_two(double exponent) { return std::string("2^").append(number(exponent, "%g")); }

}  // namespace

ScaledRange scaled_range(DType element)
{
    const DTypeTraits& t = traits(element);
    return {std::log2(t.min_subnormal), std::log2(t.min_normal), std::log2(t.max)};
}

BinZone bin_zone(int exponent, const ScaledRange& range)
{
    if (exponent + 1 <= range.min_subnormal) return BinZone::flushed;
    if (exponent < range.min_normal) return BinZone::subnormal;
    if (exponent >= range.max) return BinZone::saturated;
    return BinZone::normal;
}

const char* bin_zone_name(BinZone zone)
{
    switch (zone) {
    case BinZone::flushed: return "flushed to 0";
    case BinZone::subnormal: return "subnormal";
    case BinZone::normal: return "normal";
    case BinZone::saturated: return "saturated";
    }
    return "?";
}

float BlockStrip::shade(std::size_t cell) const
{
    if (highest == lowest) return 0.5f;
    return float(exponents.at(cell) - lowest) / float(highest - lowest);
}

std::string BlockStrip::describe(std::size_t cell, std::int64_t block_size) const
{
    const std::int64_t row = std::int64_t(cell) / blocks_per_row, block = std::int64_t(cell) % blocks_per_row;
    const int e = exponents.at(cell);
    return std::string("row ")
        .append(std::to_string(row))
        .append(", block ")
        .append(std::to_string(block))
        .append(" (elements ")
        .append(std::to_string(block * block_size))
        .append("..")
        .append(std::to_string((block + 1) * block_size - 1))
        .append("): scale ")
        .append(power_of_two(e))
        .append(" = ")
        .append(number(std::ldexp(1.0, e), "%.6g"));
}

namespace {

// The chart's bins, from v.lowest to v.highest: the data's bins and the format's range (v.range),
// a binade beyond each, every bin in its zone.
void chart_bins(ScaledCastView& v, const trace::ScaledCast& cast)
{
    const int first = trace::ScaledCast::kHistogramLowest;
    int data_lo = 0, data_hi = -1;
    for (std::size_t i = 0; i < cast.log2_histogram.size(); ++i)
        if (cast.log2_histogram[i] > 0) {
            if (data_hi < data_lo) data_lo = first + int(i);
            data_hi = first + int(i);
        }
    v.lowest = int(std::floor(v.range.min_subnormal)) - 1;
    v.highest = int(std::ceil(v.range.max));
    if (data_hi >= data_lo) {
        v.lowest = std::min(v.lowest, data_lo - 1);
        v.highest = std::max(v.highest, data_hi + 1);
    }
    for (int e = v.lowest; e <= v.highest; ++e) {
        const std::size_t i = std::size_t(e - first);
        const std::int64_t count = e >= first && i < cast.log2_histogram.size() ? cast.log2_histogram[i] : 0;
        v.bins.push_back({e, count, bin_zone(e, v.range)});
        // The bin that holds max is saturated in part: marked so when the cast clamped anything.
        if (e < v.range.max && e + 1 > v.range.max && cast.saturated_share > 0) v.bins.back().zone = BinZone::saturated;
    }
}

// An MX cast's block scales, as the strip draws them.
BlockStrip block_strip(const trace::ScaledCast& cast)
{
    BlockStrip strip;
    strip.blocks_per_row = cast.blocks_per_row;
    strip.exponents.assign(cast.block_scale_exponents.begin(), cast.block_scale_exponents.end());
    strip.rows = std::int64_t(strip.exponents.size()) / cast.blocks_per_row;
    strip.truncated = cast.shape.size() == 2 && strip.rows < cast.shape[0];
    if (!strip.exponents.empty()) {
        const auto [lo, hi] = std::minmax_element(strip.exponents.begin(), strip.exponents.end());
        strip.lowest = *lo;
        strip.highest = *hi;
    }
    return strip;
}

// What the numbers mean, in sentences.
std::vector<std::string> sentences(const ScaledCastView& v, const trace::ScaledCast& cast)
{
    const char* format = dtype_name(cast.dtype);
    std::int64_t total = 0, flushed = 0;  // values in the chart, and in its flushed bins
    for (const HistogramBin& bin : v.bins) {
        total += bin.count;
        if (bin.zone == BinZone::flushed) flushed += bin.count;
    }
    std::vector<std::string> facts;
    if (total > 0 && !v.is_mx) {
        const double top = std::log2(cast.amax * cast.scale);
        if (std::isfinite(top))
            facts.push_back("after scaling the largest |x| is " + power_of_two(std::round(top * 100) / 100) + ", " +
                            number(v.range.max - top, "%.2f") + " binades below " + format + "'s max (2^" + number(v.range.max, "%.2f") + ")");
    }
    if (cast.saturated_share > 0)
        facts.push_back(percent(cast.saturated_share) + " of the values were clamped to " + format + "'s max (" +
                        number(traits(cast.dtype).max, "%g") + ")");
    if (cast.flushed_share > 0)
        facts.push_back(percent(cast.flushed_share) + " of the non-zero values became 0 (under 2^" + number(v.range.min_subnormal, "%g") +
                        " after scaling)");
    else if (total > 0 && flushed == 0)
        facts.push_back(std::string("no value fell under ") + format + "'s smallest subnormal");
    if (v.is_mx && !v.strip.exponents.empty())
        facts.push_back("block scales from " + power_of_two(v.strip.lowest) + " to " + power_of_two(v.strip.highest) + " over " +
                        std::to_string(v.strip.exponents.size()) + " blocks" + (v.strip.truncated ? " (the first ones kept)" : ""));
    if (cast.zeros > 0) facts.push_back(std::to_string(cast.zeros) + " elements were 0 before the cast");
    return facts;
}

}  // namespace

ScaledCastView view_scaled_cast(const trace::ScaledCast& cast)
{
    ScaledCastView v;
    v.heading = cast.role + " \u2192 " + dtype_name(cast.dtype) + " (" + cast.recipe + " scaling)";
    v.shape = shape_str(cast.shape);
    v.amax = number(cast.amax);
    v.is_mx = cast.blocks_per_row > 0;
    v.scale = v.is_mx ? std::string("1 (per-block scales)") : number(cast.scale, "%.6g");
    v.scale_log2 = v.is_mx || !(cast.scale > 0) ? std::string("-") : number(std::log2(cast.scale), "%.2f");
    v.saturated = percent(cast.saturated_share);
    v.flushed = percent(cast.flushed_share);
    v.zeros = cast.zeros;
    v.range = scaled_range(cast.dtype);

    // AmaxHistory::values(): newest first, then oldest to second newest.
    if (!cast.amax_history.empty()) {
        v.history.assign(cast.amax_history.begin() + 1, cast.amax_history.end());
        v.history.push_back(cast.amax_history.front());
    }
    chart_bins(v, cast);
    if (v.is_mx) v.strip = block_strip(cast);
    v.facts = sentences(v, cast);
    return v;
}

}  // namespace tinyamp::viz
