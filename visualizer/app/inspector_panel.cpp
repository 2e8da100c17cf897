#include "visualizer/app/inspector_panel.h"
#include "visualizer/app/ui_scale.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "visualizer/app/colors.h"
#include "visualizer/app/scaled_cast_panel.h"
#include "visualizer/model/chart_captions.h"
#include "visualizer/model/inspector.h"

namespace tinyamp::viz {
namespace {

void dtype_chip(DType dtype)
{
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float h = ImGui::GetTextLineHeight();
    const ImVec2 size = {ImGui::CalcTextSize(dtype_name(dtype)).x + 10, h};
    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->AddRectFilled(p, {p.x + size.x, p.y + size.y}, dtype_fill(dtype), 3);
    draw->AddText({p.x + 5, p.y}, dtype_text(dtype), dtype_name(dtype));
    ImGui::Dummy(size);
}

void tensor_table(const char* id, const char* heading, const std::vector<trace::TensorInfo>& tensors)
{
    if (tensors.empty()) return;
    if (!ImGui::BeginTable(id, 3, ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingStretchProp)) return;
    ImGui::TableSetupColumn(heading);
    ImGui::TableSetupColumn("dtype");
    ImGui::TableSetupColumn("shape");
    ImGui::TableHeadersRow();
    for (const trace::TensorInfo& t : tensors) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(t.name.empty() ? "-" : t.name.c_str());
        ImGui::TableNextColumn();
        dtype_chip(t.dtype);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(shape_str(t.shape).c_str());
    }
    ImGui::EndTable();
}

std::string percent(double share)
{
    char text[32];
    if (share > 0 && share < 0.001)
        std::snprintf(text, sizeof text, "<0.1%%");
    else
        std::snprintf(text, sizeof text, "%.1f%%", 100.0 * share);
    return text;
}

// A format's limit drawn on the histogram, its caption beside its line on the side with room.
struct Limit {
    double value;
    DType dtype;
    const char* name;
    bool left_of_line;
};

// The limits of f16 and bf16 that fall on a chart of binades [lo, hi].
std::vector<Limit> limits_between(int lo, int hi)
{
    const FormatLimits f16 = format_limits(DType::f16), bf16 = format_limits(DType::bf16);
    std::vector<Limit> limits;
    for (const Limit& l : {Limit{f16.smallest_subnormal, DType::f16, "f16: 0 below", false}, Limit{f16.smallest_normal, DType::f16, "f16 normal", false},
                           Limit{f16.max, DType::f16, "f16 max", true}, Limit{bf16.smallest_subnormal, DType::bf16, "bf16: 0 below", false},
                           Limit{bf16.smallest_normal, DType::bf16, "bf16 normal", false}})
        if (const double e = std::log2(l.value); e >= lo && e <= hi) limits.push_back(l);
    return limits;
}

// Where the histogram is drawn: the captions' band from `top`, the bars' area below it from `bars`.
struct HistogramChart {
    ImDrawList* draw;
    ImVec2 top, bars;
    float width, height;  // of the bars' area
    int lo, hi;           // the binades shown
    float bin_w;
    float x_of(double exponent) const { return top.x + float(exponent - lo) * bin_w; }
};

// The chart's background, and f16's lossy zones tinted: flushed to zero (red), subnormal (amber),
// overflow (red).
void draw_lossy_zones(const HistogramChart& c)
{
    const FormatLimits f16 = format_limits(DType::f16);
    const ImVec2 p = c.bars;
    c.draw->AddRectFilled(c.top, {c.top.x + c.width, p.y + c.height}, IM_COL32(25, 25, 30, 255));
    c.draw->AddRectFilled({p.x, p.y}, {c.x_of(std::log2(f16.smallest_subnormal)), p.y + c.height}, IM_COL32(120, 30, 30, 120));
    c.draw->AddRectFilled({c.x_of(std::log2(f16.smallest_subnormal)), p.y}, {c.x_of(std::log2(f16.smallest_normal)), p.y + c.height},
                          IM_COL32(120, 90, 20, 100));
    c.draw->AddRectFilled({c.x_of(std::ceil(std::log2(f16.max))), p.y}, {p.x + c.width, p.y + c.height}, IM_COL32(120, 30, 30, 120));
}

// One bar per binade, the tallest the area's height less 6 pixels.
void draw_bars(const HistogramChart& c, const trace::Log2Histogram& h)
{
    const std::int64_t tallest = *std::max_element(h.counts.begin(), h.counts.end());
    for (std::size_t i = 0; i < h.counts.size(); ++i) {
        if (h.counts[i] == 0) continue;
        const double e = h.lowest_exponent + int(i);
        const float bar = float(c.height - 6) * float(h.counts[i]) / float(tallest);
        c.draw->AddRectFilled({c.x_of(e) + 1, c.bars.y + c.height - bar}, {c.x_of(e + 1) - 1, c.bars.y + c.height}, IM_COL32(200, 200, 210, 255));
    }
}

// Each limit's line from its caption's row down through the bars, and the caption.
void draw_limits(const HistogramChart& c, const std::vector<Limit>& limits, const std::vector<CaptionPlace>& places, float line_h)
{
    for (std::size_t i = 0; i < limits.size(); ++i) {
        const float x = c.x_of(std::log2(limits[i].value)), row_y = c.top.y + line_h * float(places[i].row);
        c.draw->AddLine({x, row_y}, {x, c.bars.y + c.height}, dtype_fill(limits[i].dtype), 2);
        c.draw->AddText({c.top.x + places[i].x, row_y}, dtype_fill(limits[i].dtype), limits[i].name);
    }
}

// The axis, a tick every 8 binades, and the note that bf16's range covers the chart when it does.
void draw_axis(const HistogramChart& c)
{
    const ImVec2 p = c.bars;
    for (int e = (c.lo / 8) * 8; e <= c.hi; e += 8) {
        if (e < c.lo) continue;
        const std::string tick = "2^" + std::to_string(e);
        c.draw->AddLine({c.x_of(e), p.y + c.height}, {c.x_of(e), p.y + c.height + ui_px(4)}, IM_COL32(180, 180, 180, 255));
        const float text_x = std::min(c.x_of(e) - ui_px(10), p.x + c.width - ImGui::CalcTextSize(tick.c_str()).x);
        c.draw->AddText({text_x, p.y + c.height + ui_px(5)}, IM_COL32(180, 180, 180, 255), tick.c_str());
    }
    if (format_limits(DType::bf16).smallest_subnormal < std::ldexp(1.0, c.lo))  // wrapped to the chart's width: the panel follows the window
        c.draw->AddText(ImGui::GetFont(), ImGui::GetFontSize(), {p.x, p.y + c.height + ui_px(19)}, IM_COL32(255, 127, 14, 255),
                        "bf16's range (2^-133 .. 2^128) covers all of this chart", nullptr, c.width);
}

// The histogram of floor(log2|x|), one bar per binade, with the f16 and bf16 limits as vertical
// lines: what lies left of "smallest subnormal" becomes 0 in that format, what lies right of
// "max" becomes inf, and between the subnormal and normal lines precision is lost. The lines'
// captions sit in a band above the bars (chart_captions.h), never on them.
void log2_histogram(const trace::ValueStats& stats)
{
    const trace::Log2Histogram& h = stats.log2_abs;
    const float width = ImGui::GetContentRegionAvail().x, height = ui_px(150);
    const ImVec2 top = ImGui::GetCursorScreenPos();
    ImDrawList* draw = ImGui::GetWindowDrawList();
    if (h.counts.empty()) {
        ImGui::Dummy({width, height});
        draw->AddRectFilled(top, {top.x + width, top.y + height}, IM_COL32(25, 25, 30, 255));
        draw->AddText({top.x + 8, top.y + 8}, IM_COL32(200, 200, 200, 255), "no finite non-zero values");
        return;
    }
    // The x range: the data, widened to show f16's whole range (2^-24 .. 2^16).
    const int data_lo = h.lowest_exponent, data_hi = h.lowest_exponent + int(h.counts.size());
    const int lo = std::min(data_lo, -26), hi = std::max(data_hi, 18);
    HistogramChart chart{draw, top, top, width, height, lo, hi, width / float(hi - lo)};

    const std::vector<Limit> limits = limits_between(lo, hi);
    std::vector<Caption> captions;
    for (const Limit& l : limits) captions.push_back({chart.x_of(std::log2(l.value)) - top.x, ImGui::CalcTextSize(l.name).x, l.left_of_line});
    const std::vector<CaptionPlace> places = place_captions(captions, width);
    const float line_h = ImGui::GetTextLineHeight(), band = line_h * float(caption_rows(places));
    chart.bars = {top.x, top.y + band};

    // Room for the captions, the bars, the ticks and the bf16 note below them, wrapped to the chart's width.
    const float note = ImGui::CalcTextSize("bf16's range (2^-133 .. 2^128) covers all of this chart", nullptr, false, width).y;
    ImGui::Dummy({width, band + height + ui_px(19) + note});
    draw_lossy_zones(chart);
    draw_bars(chart, h);
    draw_limits(chart, limits, places, line_h);
    draw_axis(chart);
}

// The node's heading: its title, what went wrong, its kind, its autocast rule and why, its cache.
void draw_heading(const NodeDetails& d, const Document& document)
{
    ImGui::TextUnformatted(d.title.c_str());
    if (!d.headline.empty()) {  // what happened (NaN or inf), before anything else about the node
        ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(255, 110, 110, 255));
        ImGui::TextWrapped("%s", d.headline.c_str());
        ImGui::PopStyleColor();
    }
    ImGui::TextDisabled("%s%s", trace::node_kind_name(d.kind), document.selected() >= 0 ? "  (selected; click the canvas to follow the timeline)" : "  (the timeline's current event)");
    ImGui::Separator();
    if (!d.policy.empty()) {
        ImGui::Text("autocast rule: %s", d.policy.c_str());
        if (!d.policy_meaning.empty()) ImGui::TextWrapped("%s", d.policy_meaning.c_str());
    }
    if (!d.why.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(255, 220, 120, 255));
        ImGui::TextWrapped("why: %s", d.why.c_str());
        ImGui::PopStyleColor();
    }
    if (!d.cache.empty()) ImGui::TextWrapped("%s", d.cache.c_str());
    if (!d.collective.empty()) ImGui::TextWrapped("sent: %s", d.collective.c_str());
}

// The f32 values' dtype, shape and range, the shares f16 and bf16 would lose, and their histogram.
void draw_values(const NodeDetails& d)
{
    const trace::ValueStats& s = d.values.stats;
    ImGui::Text("values of %s %s", dtype_name(d.values.dtype), shape_str(d.values.shape).c_str());
    ImGui::TextUnformatted(d.value_range.c_str());
    // Over no finite value, the shares lost and the histogram would say nothing.
    if (!d.has_finite_values) return;
    if (ImGui::BeginTable("lost", 3, ImGuiTableFlags_BordersInnerH)) {
        ImGui::TableSetupColumn("lost in");
        ImGui::TableSetupColumn("underflow → 0");
        ImGui::TableSetupColumn("overflow → inf");
        ImGui::TableHeadersRow();
        for (const auto& [name, under, over] : {std::tuple{"f16", s.f16_underflow, s.f16_overflow}, std::tuple{"bf16", s.bf16_underflow, s.bf16_overflow}}) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(name);
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(percent(under).c_str());
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(percent(over).c_str());
        }
        ImGui::EndTable();
    }
    ImGui::TextDisabled("histogram of log2|x| (one bar per power of two)");
    log2_histogram(s);
}

}  // namespace

void draw_inspector(const Document& document, const StepContext& step)
{
    const int node = document.inspected();
    if (node < 0) {
        ImGui::TextWrapped("Nothing shown yet: step forward (→) or click a node.");
        return;
    }
    const NodeDetails d = inspect(document.trace(), document.graph(), node, step);
    draw_heading(d, document);
    ImGui::Spacing();
    tensor_table("inputs", "inputs", d.inputs);
    const bool backward = document.graph().nodes[std::size_t(node)].phase == trace::Phase::backward;
    tensor_table("outputs", backward && d.kind != trace::NodeKind::tensor ? "gradients" : "outputs", d.outputs);
    // An op that cast to FP8/FP4 inside (fp8_linear): what each cast did, before the f32 values.
    if (const int event = document.graph().nodes[std::size_t(node)].event; event >= 0)
        draw_scaled_casts(document.trace().events()[std::size_t(event)].scaled_casts);

    ImGui::Spacing();
    if (d.has_values) draw_values(d);
    for (const std::string& fact : d.facts) {
        ImGui::Bullet();
        ImGui::TextWrapped("%s", fact.c_str());
    }
}

}  // namespace tinyamp::viz
