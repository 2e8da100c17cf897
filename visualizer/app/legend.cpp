#include "visualizer/app/legend.h"

#include <algorithm>
#include <string>
#include <vector>

#include "visualizer/app/colors.h"
#include "visualizer/app/node_painter.h"

namespace tinyamp::viz {
namespace {

// One row: what its swatch shows and its text.
enum class Mark { dtype, cast, store, hit, parameter, collective };
struct Row {
    Mark mark;
    DType dtype = DType::f32;
    std::string text;
};

// The dtypes on nodes in the palette's order, the formats of scaled casts, then the marks that
// appear in this graph.
std::vector<Row> legend_rows(const trace::TraceGraph& graph)
{
    std::vector<DType> fills;
    for (const trace::GraphNode& node : graph.nodes)
        if (node.has_dtype && std::find(fills.begin(), fills.end(), node.dtype) == fills.end()) fills.push_back(node.dtype);
    std::sort(fills.begin(), fills.end(), [](DType a, DType b) {
        return std::find(kAllDTypes.begin(), kAllDTypes.end(), a) < std::find(kAllDTypes.begin(), kAllDTypes.end(), b);
    });
    std::vector<Row> rows;
    for (const DType d : fills) rows.push_back({Mark::dtype, d, dtype_name(d)});
    // The FP8/FP4 formats fp8_linear casts to inside: its inputs and outputs stay f32, so no node
    // is filled with them, but the inspector's sections for its casts are (scaled_cast_panel.h).
    for (const DType d : graph.scaled_cast_dtypes)
        if (std::find(fills.begin(), fills.end(), d) == fills.end()) rows.push_back({Mark::dtype, d, std::string(dtype_name(d)) + " (inside fp8_linear)"});
    if (graph.has_casts) rows.push_back({Mark::cast, DType::f32, "autocast cast"});
    if (std::any_of(graph.nodes.begin(), graph.nodes.end(), [](const trace::GraphNode& n) { return n.cache == trace::CacheEvent::stored; }))
        rows.push_back({Mark::store, DType::f32, "cast cache store"});
    if (graph.has_cache_hits) rows.push_back({Mark::hit, DType::f32, "cast cache hit"});
    if (graph.has_collectives) rows.push_back({Mark::collective, DType::f32, "collective (filled: the dtype sent)"});
    rows.push_back({Mark::parameter, DType::f32, "parameter (weight)"});
    return rows;
}

const char* header(bool folded) { return folded ? "dtypes \u25b8" : "dtypes \u25be"; }

// The legend's lengths, in units of the UI font's size so that they follow the UI scale.
struct Metrics {
    float em = ImGui::GetFontSize();
    float pad = 0.5f * em;
    float row = ImGui::GetTextLineHeight() + 0.25f * em;
    float swatch = 1.75f * em;
    float gap = 0.5f * em;
    float glyph = 0.55f * em;
    float text_x = swatch + gap + glyph + gap;  // every row's text, after the swatch and the glyph column
};

}  // namespace

ImVec2 legend_size(const trace::TraceGraph& graph, bool folded)
{
    const Metrics m;
    float text = ImGui::CalcTextSize(header(folded)).x;
    const std::vector<Row> rows = folded ? std::vector<Row>{} : legend_rows(graph);
    for (const Row& row : rows) text = std::max(text, m.text_x + ImGui::CalcTextSize(row.text.c_str()).x);
    return {2 * m.pad + text, 2 * m.pad + m.row * float(rows.size() + 1) - 0.25f * m.em};
}

Rect draw_legend(ImDrawList* draw, ImVec2 at, const trace::TraceGraph& graph, bool folded)
{
    const Metrics m;
    const ImVec2 size = legend_size(graph, folded);
    draw->AddRectFilled(at, {at.x + size.x, at.y + size.y}, IM_COL32(20, 20, 24, 220), 0.25f * m.em);
    const ImU32 text = IM_COL32(230, 230, 230, 255);
    ImVec2 p = {at.x + m.pad, at.y + m.pad};
    draw->AddText(p, text, header(folded));
    const Rect header_box{{at.x, at.y}, {at.x + size.x, p.y + m.row}};
    if (folded) return header_box;
    p.y += m.row;
    for (const Row& row : legend_rows(graph)) {
        const ImVec2 a = {p.x, p.y + 0.15f * m.em}, b = {p.x + m.swatch, p.y + m.row - 0.4f * m.em};
        switch (row.mark) {
        case Mark::dtype: draw->AddRectFilled(a, b, dtype_fill(row.dtype), 0.2f * m.em); break;
        case Mark::cast: draw->AddRect(a, b, hex_color(colors::kCastOutline), 0, 0, 2); break;
        case Mark::store: draw->AddCircleFilled({(a.x + b.x) / 2, (a.y + b.y) / 2}, 0.3f * m.em, IM_COL32(255, 255, 255, 255)); break;
        case Mark::hit: dashed_outline(draw, rect_points(a, b), text, 1.5f, 0.2f * m.em); break;
        case Mark::collective: {
            const std::vector<ImVec2> hexagon = hexagon_points(a, b);
            draw->AddPolyline(hexagon.data(), int(hexagon.size()), text, ImDrawFlags_Closed, 1.5f);
            break;
        }
        case Mark::parameter: {
            const std::vector<ImVec2> ring = ellipse_points(a, b, 24);
            draw->AddPolyline(ring.data(), int(ring.size()), hex_color(colors::kParameter), ImDrawFlags_Closed, 2);
            break;
        }
        }
        if (row.mark == Mark::dtype) {  // the glyph its nodes carry, beside the swatch
            const float x = p.x + m.swatch + m.gap, y = p.y + (m.row - 0.25f * m.em - m.glyph) / 2;
            draw_glyph(draw, dtype_glyph(row.dtype), {x, y}, {x + m.glyph, y + m.glyph}, text);
        }
        draw->AddText({p.x + m.text_x, p.y}, text, row.text.c_str());
        p.y += m.row;
    }
    return header_box;
}

}  // namespace tinyamp::viz
