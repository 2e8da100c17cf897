#pragma once
// What the inspector shows of one FP8/FP4 cast an op made (trace::ScaledCast, fp8_linear's
// input, weight and output gradient): its numbers as text, the amax history in time order, the
// histogram of log2|x * scale| against the format's range, and MX block scales as a strip. Plain
// data, so tests/visualizer/scaled_cast_view_test.cpp checks what a student reads without a GPU;
// app/scaled_cast_panel.cpp draws it.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tinyamp/trace/event.h"

namespace tinyamp::viz {

/// A minifloat format's range as powers of two, from traits(dtype): below `min_subnormal` a value
/// becomes 0, between it and `min_normal` it loses precision (subnormal), above `max` it saturates
/// (E4M3, E2M1) or overflows (E5M2). E4M3: -9, -6, 8.81; E5M2: -16, -14, 15.81; E2M1: -1, 0, 2.58.
struct ScaledRange {
    double min_subnormal = 0;  ///< log2 of the smallest positive value
    double min_normal = 0;     ///< log2 of the smallest normal value
    double max = 0;            ///< log2 of the largest finite value
};
/// The range of a scaled cast's element dtype (f8e4m3fn, f8e5m2, f4e2m1x2: each of its FP4 values).
ScaledRange scaled_range(DType element);

/// Where a histogram bin [2^e, 2^(e+1)) lies against a format's range.
enum class BinZone {
    flushed,    ///< entirely below the smallest subnormal: its values become 0
    subnormal,  ///< below the smallest normal: kept with fewer bits
    normal,     ///< in the normal range
    saturated,  ///< wholly above max: clamped to +-max (or inf for E5M2)
};
/// The zone of the bin of 2^exponent. (view_scaled_cast also marks the bin that holds max as
/// saturated when the cast clamped some values.)
BinZone bin_zone(int exponent, const ScaledRange& range);
const char* bin_zone_name(BinZone zone);                    ///< "flushed to 0", "subnormal", "normal", "saturated"

/// One bar of the log2 histogram.
struct HistogramBin {
    int exponent = 0;      ///< the bin holds |x * scale| in [2^exponent, 2^(exponent+1))
    std::int64_t count = 0;
    BinZone zone = BinZone::normal;
};

/// Elements per block of a block-scaled cast, from its recipe: 16 for "nvfp4" (E4M3 block
/// scales), 32 for the OCP MX formats (MXFP8, MXFP4).
constexpr std::int64_t block_size_of(std::string_view recipe) { return recipe == "nvfp4" ? 16 : 32; }

/// MX block scales as a strip: one cell per block, row-major [rows, blocks_per_row].
struct BlockStrip {
    std::int64_t rows = 0;            ///< rows of the cast matrix that have scales kept
    std::int64_t blocks_per_row = 0;  ///< cells in each row of the strip
    std::vector<int> exponents;       ///< each block's scale as 2^exponent
    int lowest = 0, highest = 0;      ///< the smallest and largest exponent (the shade's ends)
    bool truncated = false;           ///< the trace kept only the first kMaxBlockScales scales
    /// 0 for the lowest exponent .. 1 for the highest (0.5 when all are equal): the cell's shade.
    float shade(std::size_t cell) const;
    /// The tooltip of a cell: "row 3, block 1 (elements 32..63): scale 2^-4 = 0.0625".
    std::string describe(std::size_t cell, std::int64_t block_size) const;
};

/// Everything the inspector's section for one scaled cast shows.
struct ScaledCastView {
    std::string heading;    ///< "input → f8e4m3fn (delayed scaling)"
    std::string shape;      ///< "[32, 64]"
    std::string amax;       ///< "0.998"
    std::string scale;      ///< "448" ("1 (per-block scales)" for MX)
    std::string scale_log2; ///< "8.81" ("-" for MX)
    std::string saturated;  ///< "0.0%" ("<0.1%" for a share under a thousandth)
    std::string flushed;    ///< share of the nonzero elements that became 0, as `saturated`
    /// The amax history oldest first, newest last (ScaledCast keeps it newest first, then
    /// oldest to second newest); empty unless the recipe is delayed scaling.
    std::vector<float> history;
    ScaledRange range;                  ///< the element dtype's range
    /// Every bin from `lowest` to `highest`, zeros included; the bin holding max is `saturated`
    /// when the cast's saturated share is not 0.
    std::vector<HistogramBin> bins;
    int lowest = 0, highest = 0;        ///< the chart's x range: the data and the format's range, with a binade either side
    std::int64_t zeros = 0;             ///< elements that were 0 before the cast (not in the histogram)
    bool is_mx = false;                 ///< block-scaled (blocks_per_row > 0)
    BlockStrip strip;                   ///< MX only
    /// Plain sentences, e.g. "12.5% of the values lie below E4M3's smallest subnormal (2^-9) after
    /// scaling: they become 0".
    std::vector<std::string> facts;
};

/// The view of `cast`.
ScaledCastView view_scaled_cast(const trace::ScaledCast& cast);

}  // namespace tinyamp::viz
