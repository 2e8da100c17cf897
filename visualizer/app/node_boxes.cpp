#include "visualizer/app/node_boxes.h"

#include <cstdio>

#include "visualizer/app/colors.h"

namespace tinyamp::viz {
namespace {

std::string rect_text(const Rect& r)
{
    char text[96];
    std::snprintf(text, sizeof text, "%.1f %.1f %.1f %.1f", double(r.min.x), double(r.min.y), double(r.max.x), double(r.max.y));
    return text;
}

// The color a fill of `color` (with alpha) has once blended over the canvas, as "#rrggbb".
std::string drawn_color(ImU32 color)
{
    const ImU32 canvas = hex_color(colors::kCanvas);
    const unsigned alpha = (color >> IM_COL32_A_SHIFT) & 0xff;
    auto channel = [&](int shift) {
        const unsigned c = (color >> shift) & 0xff, under = (canvas >> shift) & 0xff;
        return (c * alpha + under * (255 - alpha) + 127) / 255;
    };
    char text[16];
    std::snprintf(text, sizeof text, "#%02x%02x%02x", channel(IM_COL32_R_SHIFT), channel(IM_COL32_G_SHIFT), channel(IM_COL32_B_SHIFT));
    return text;
}

}  // namespace

std::string node_boxes_text(const DrawnFrame& drawn, const trace::TraceGraph& graph, int inspected)
{
    std::string text;
    char numbers[64];
    for (const DrawnFrame::Node& n : drawn.nodes) {
        const trace::GraphNode& node = graph.nodes[std::size_t(n.index)];
        const Rect marks{n.box.min, {n.face.label.min.x, n.box.max.y}};
        std::snprintf(numbers, sizeof numbers, " outline %.1f round %.1f", double(n.face.outline), double(n.face.rounding));
        text += "node " + node.name + " " + trace::node_kind_name(node.kind) + " " + rect_text(n.box) + " fill " + drawn_color(n.fill) + numbers +
                " marks " + rect_text(marks) + "\n";
    }
    if (drawn.legend) text += "legend " + rect_text(*drawn.legend) + "\n";
    if (drawn.minimap) text += "minimap " + rect_text(*drawn.minimap) + "\n";
    if (inspected >= 0) text += "inspected " + graph.nodes[std::size_t(inspected)].name + "\n";
    return text;
}

}  // namespace tinyamp::viz
