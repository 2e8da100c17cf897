#pragma once
// Where the captions of a histogram's limit lines go ("f16: 0 below", "f16 max"): in rows above
// the bars, each beside its line, so that no caption covers a bar or another caption. The
// inspector's log2|x| chart and an FP8 cast's chart both place theirs so. No GUI here: the caller
// measures the text (tests/visualizer/chart_captions_test.cpp).
#include <algorithm>
#include <vector>

namespace tinyamp::viz {

/// A caption to write beside the vertical line at `line_x` (pixels from the chart's left).
struct Caption {
    float line_x = 0;
    float width = 0;          ///< the text's width in pixels
    bool left_of_line = false;  ///< written left of its line (else right of it)
};

/// Where one caption goes: `x` from the chart's left, on row `row` of the band above the bars (0
/// the top row).
struct CaptionPlace {
    float x = 0;
    int row = 0;
};

/// Each caption beside its line, `pad` pixels from it, moved inside [0, chart_width] when it
/// would stick out, on the first row where it keeps `gap` pixels from the captions already
/// placed there (in the order given).
inline std::vector<CaptionPlace> place_captions(const std::vector<Caption>& captions, float chart_width, float pad = 3, float gap = 6)
{
    std::vector<CaptionPlace> places;
    for (const Caption& c : captions) {
        const float beside = c.left_of_line ? c.line_x - pad - c.width : c.line_x + pad;
        const float x = std::clamp(beside, 0.0f, std::max(0.0f, chart_width - c.width));
        const auto taken = [&](int row) {
            for (std::size_t i = 0; i < places.size(); ++i)
                if (places[i].row == row && x < places[i].x + captions[i].width + gap && places[i].x < x + c.width + gap) return true;
            return false;
        };
        int row = 0;
        while (taken(row)) ++row;
        places.push_back({x, row});
    }
    return places;
}

/// The rows `places` take: the height of the band above the bars is this many lines.
inline int caption_rows(const std::vector<CaptionPlace>& places)
{
    int rows = 0;
    for (const CaptionPlace& p : places) rows = std::max(rows, p.row + 1);
    return rows;
}

}  // namespace tinyamp::viz
