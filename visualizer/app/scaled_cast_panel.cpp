#include "visualizer/app/scaled_cast_panel.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <string>
#include <vector>

#include "visualizer/app/colors.h"
#include "visualizer/app/ui_scale.h"
#include "visualizer/model/chart_captions.h"
#include "visualizer/model/scaled_cast_view.h"

namespace tinyamp::viz {
namespace {

ImU32 zone_color(BinZone zone)
{
    switch (zone) {
    case BinZone::flushed: return IM_COL32(230, 90, 90, 255);
    case BinZone::subnormal: return IM_COL32(230, 180, 70, 255);
    case BinZone::normal: return IM_COL32(200, 200, 210, 255);
    case BinZone::saturated: return IM_COL32(230, 90, 90, 255);
    }
    return IM_COL32(200, 200, 210, 255);
}

void numbers_table(const ScaledCastView& v)
{
    if (!ImGui::BeginTable("numbers", 2, ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingStretchProp)) return;
    const std::pair<const char*, const std::string*> rows[] = {{"shape", &v.shape},          {"amax", &v.amax},
                                                               {"scale", &v.scale},          {"log2 scale", &v.scale_log2},
                                                               {"saturated", &v.saturated}, {"flushed to 0", &v.flushed}};
    for (const auto& [name, value] : rows) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(name);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(value->c_str());
    }
    ImGui::EndTable();
}

void amax_history(const ScaledCastView& v)
{
    if (v.history.empty()) return;
    const float top = *std::max_element(v.history.begin(), v.history.end());
    char overlay[96];
    std::snprintf(overlay, sizeof overlay, "amax history, oldest \u2192 newest (max %.3g)", double(top));
    ImGui::PlotLines("##history", v.history.data(), int(v.history.size()), 0, overlay, 0.0f, top > 0 ? top * 1.1f : 1.0f,
                     {ImGui::GetContentRegionAvail().x, ui_px(60)});
}

// One bar per binade of |x * scale|, tinted by zone (red: flushed or saturated, amber: subnormal),
// with the format's range as vertical lines: left of "0 below" values become 0, up to "normal"
// they are subnormal, right of "max" they saturate. The lines' captions sit in a band above the
// bars (chart_captions.h), never on them.
void histogram(const ScaledCastView& v, DType dtype)
{
    const float width = ImGui::GetContentRegionAvail().x, height = ui_px(110);
    const ImVec2 top = ImGui::GetCursorScreenPos();
    const float bin_w = width / float(v.highest - v.lowest + 1);
    auto x_of = [&](double exponent) { return top.x + float(exponent - v.lowest) * bin_w; };
    struct Limit {
        double exponent;
        const char* name;
        bool left_of_line;
    };
    const Limit limits[] = {{v.range.min_subnormal, "0 below", true}, {v.range.min_normal, "normal", false}, {v.range.max, "max", true}};
    std::vector<Caption> captions;
    for (const Limit& l : limits) captions.push_back({x_of(l.exponent) - top.x, ImGui::CalcTextSize(l.name).x, l.left_of_line});
    const std::vector<CaptionPlace> places = place_captions(captions, width);
    const float line_h = ImGui::GetTextLineHeight(), band = line_h * float(caption_rows(places));
    const ImVec2 p = {top.x, top.y + band};  // the bars' area

    ImGui::Dummy({width, band + height + ui_px(18)});
    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->AddRectFilled(top, {top.x + width, p.y + height}, IM_COL32(25, 25, 30, 255));
    std::int64_t tallest = 0;
    for (const HistogramBin& b : v.bins) tallest = std::max(tallest, b.count);
    for (const HistogramBin& b : v.bins) {
        if (b.count == 0) continue;
        const float bar = std::max(2.0f, float(height - ui_px(6)) * float(b.count) / float(tallest));
        draw->AddRectFilled({x_of(b.exponent) + 1, p.y + height - bar}, {x_of(b.exponent + 1) - 1, p.y + height}, zone_color(b.zone));
    }
    // Each limit's line from its caption's row down through the bars.
    const ImU32 line = dtype_fill(dtype);
    for (std::size_t i = 0; i < std::size(limits); ++i) {
        const float x = x_of(limits[i].exponent), row_y = top.y + line_h * float(places[i].row);
        draw->AddLine({x, row_y}, {x, p.y + height}, line, 2);
        draw->AddText({top.x + places[i].x, row_y}, line, limits[i].name);
    }
    // Ticks every 4 binades, or 8, 16, ... where labels that close would overlap (f8e5m2's wide
    // range in a narrow panel); a label pushed in from the right edge onto its neighbour is left out.
    int every = 4;
    while (float(every) * bin_w < ImGui::CalcTextSize("2^-16").x + ui_px(6) && every < 64) every *= 2;
    float free_from = p.x;  // where the next label may start
    for (int e = v.lowest; e <= v.highest + 1; ++e) {
        if (e % every != 0) continue;
        const std::string tick = "2^" + std::to_string(e);
        draw->AddLine({x_of(e), p.y + height}, {x_of(e), p.y + height + ui_px(4)}, IM_COL32(180, 180, 180, 255));
        const float text_w = ImGui::CalcTextSize(tick.c_str()).x;
        const float text_x = std::clamp(x_of(e) - ui_px(10), p.x, p.x + width - text_w);
        if (text_x < free_from) continue;
        draw->AddText({text_x, p.y + height + ui_px(4)}, IM_COL32(180, 180, 180, 255), tick.c_str());
        free_from = text_x + text_w + ui_px(6);
    }
    // The bin under the mouse: its range, count and zone.
    if (ImGui::IsMouseHoveringRect(p, {p.x + width, p.y + height})) {
        const int e = v.lowest + int((ImGui::GetIO().MousePos.x - p.x) / bin_w);
        if (e >= v.lowest && e <= v.highest) {
            const HistogramBin& b = v.bins[std::size_t(e - v.lowest)];
            ImGui::SetTooltip("|x * scale| in [2^%d, 2^%d): %lld values (%s)", e, e + 1, static_cast<long long>(b.count), bin_zone_name(b.zone));
        }
    }
}

// MX: one cell per block, rows of the matrix down, blocks along K across; darker = smaller scale.
void block_strip(const BlockStrip& s, std::int64_t block_size)
{
    if (s.exponents.empty()) return;
    ImGui::TextDisabled("block scales (E8M0): 2^%d (dark) .. 2^%d (light)%s", s.lowest, s.highest, s.truncated ? ", first rows kept" : "");
    const float width = ImGui::GetContentRegionAvail().x;
    const float cell_w = std::max(1.0f, std::min(ui_px(14), width / float(s.blocks_per_row)));
    // Rows wrap into columns of rows so that a tall matrix stays a strip: at most ~120 px high.
    const float cell_h = std::max(1.0f, std::min(ui_px(6), ui_px(120) / float(s.rows)));
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const ImVec2 size = {cell_w * float(s.blocks_per_row), cell_h * float(s.rows)};
    ImGui::Dummy({width, size.y + ui_px(4)});
    ImDrawList* draw = ImGui::GetWindowDrawList();
    for (std::size_t cell = 0; cell < s.exponents.size(); ++cell) {
        const float x = p.x + cell_w * float(std::int64_t(cell) % s.blocks_per_row);
        const float y = p.y + cell_h * float(std::int64_t(cell) / s.blocks_per_row);
        const int shade = 40 + int(200 * s.shade(cell));
        draw->AddRectFilled({x, y}, {x + cell_w - (cell_w > 3 ? 1 : 0), y + cell_h}, IM_COL32(shade, shade, std::min(255, shade + 30), 255));
    }
    if (ImGui::IsMouseHoveringRect(p, {p.x + size.x, p.y + size.y})) {
        const ImVec2 m = ImGui::GetIO().MousePos;
        const std::int64_t row = std::int64_t((m.y - p.y) / cell_h), block = std::int64_t((m.x - p.x) / cell_w);
        const std::size_t cell = std::size_t(row * s.blocks_per_row + block);
        if (row < s.rows && block < s.blocks_per_row && cell < s.exponents.size())
            ImGui::SetTooltip("%s", s.describe(cell, block_size).c_str());
    }
}

}  // namespace

void draw_scaled_casts(const std::vector<trace::ScaledCast>& casts)
{
    if (casts.empty()) return;
    ImGui::Spacing();
    ImGui::TextDisabled("FP8/FP4 casts inside this op (%zu)", casts.size());
    for (std::size_t i = 0; i < casts.size(); ++i) {
        const ScaledCastView v = view_scaled_cast(casts[i]);
        ImGui::PushID(int(i));
        ImGui::PushStyleColor(ImGuiCol_Header, dtype_fill(casts[i].dtype, 110));
        const bool open = ImGui::CollapsingHeader(v.heading.c_str(), ImGuiTreeNodeFlags_DefaultOpen);
        ImGui::PopStyleColor();
        if (open) {
            numbers_table(v);
            amax_history(v);
            ImGui::TextDisabled("log2|x * scale| against %s", dtype_name(casts[i].dtype));
            histogram(v, casts[i].dtype);
            if (v.is_mx) block_strip(v.strip, block_size_of(casts[i].recipe));
            for (const std::string& fact : v.facts) {
                ImGui::Bullet();
                ImGui::TextWrapped("%s", fact.c_str());
            }
        }
        ImGui::PopID();
    }
}

}  // namespace tinyamp::viz
