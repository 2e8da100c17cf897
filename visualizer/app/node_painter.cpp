#include "visualizer/app/node_painter.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <string>

#include "visualizer/app/colors.h"

namespace tinyamp::viz {
namespace {

ImVec2 im(Vec2 v) { return {v.x, v.y}; }

float length(ImVec2 a) { return std::sqrt(a.x * a.x + a.y * a.y); }

// DOT's "cds" shape: a tag pointing right, as autocast's casts are drawn in the DOT export.
std::vector<ImVec2> tag_points(ImVec2 min, ImVec2 max)
{
    const float notch = (max.y - min.y) / 2;
    return {min, {max.x - notch, min.y}, {max.x, (min.y + max.y) / 2}, {max.x - notch, max.y}, {min.x, max.y}};
}

// The label in `area` as plan_label() says: all its lines, or the first alone, or (too small to
// read) none. Small text reads better from the UI font (rasterized at its size) than from the
// large graph font shrunk.
void draw_label(ImDrawList* draw, ImFont* graph_font, float wanted, const Rect& area, const std::vector<std::string>& lines, ImU32 color,
                const FaceStyle& style)
{
    if (lines.empty()) return;
    std::vector<float> widths;
    for (const std::string& line : lines) widths.push_back(text_width_at_size_1(line));
    const LabelPlan plan = plan_label({area.width(), area.height()}, widths, wanted, style.smallest_text);
    if (plan.lines == 0) return;
    ImFont* font = plan.size < ImGui::GetFont()->FontSize ? ImGui::GetFont() : graph_font;
    const float line_height = plan.size * kLineSpacing;
    const float block = plan.size + line_height * float(plan.lines - 1);
    float y = (area.min.y + area.max.y) / 2 - block / 2;
    for (int i = 0; i < plan.lines; ++i) {
        const float width = widths[std::size_t(i)] * plan.size;
        draw->AddText(font, plan.size, {(area.min.x + area.max.x) / 2 - width / 2, y}, color, lines[std::size_t(i)].c_str());
        y += line_height;
    }
}

}  // namespace

FaceStyle face_style()
{
    // The UI font is 15 px at UI scale 1: labels and glyphs grow with it.
    const float scale = ImGui::GetFont()->FontSize / 15.0f;
    FaceStyle style;
    style.smallest_text = 9.5f * scale;
    style.glyph = 8.0f * scale;
    return style;
}

float text_width_at_size_1(const std::string& line)
{
    ImFont* font = ImGui::GetFont();
    return font->CalcTextSizeA(font->FontSize, FLT_MAX, 0, line.c_str()).x / font->FontSize;
}

std::vector<ImVec2> ellipse_points(ImVec2 min, ImVec2 max, int count)
{
    std::vector<ImVec2> points;
    const ImVec2 c = {(min.x + max.x) / 2, (min.y + max.y) / 2};
    const float rx = (max.x - min.x) / 2, ry = (max.y - min.y) / 2;
    for (int i = 0; i < count; ++i) {
        const float a = 2.0f * 3.14159265f * float(i) / float(count);
        points.push_back({c.x + rx * std::cos(a), c.y + ry * std::sin(a)});
    }
    return points;
}

std::vector<ImVec2> rect_points(ImVec2 min, ImVec2 max) { return {min, {max.x, min.y}, max, {min.x, max.y}}; }

// As trace_dot.cpp's collectives: points left and right at mid-height, the flat top and bottom
// from a quarter of the width to three quarters (Graphviz's hexagon).
std::vector<ImVec2> hexagon_points(ImVec2 min, ImVec2 max)
{
    const float quarter = (max.x - min.x) / 4, middle = (min.y + max.y) / 2;
    return {{min.x, middle}, {min.x + quarter, min.y}, {max.x - quarter, min.y}, {max.x, middle}, {max.x - quarter, max.y}, {min.x + quarter, max.y}};
}

void dashed_outline(ImDrawList* draw, const std::vector<ImVec2>& points, ImU32 color, float thickness, float dash)
{
    for (std::size_t i = 0; i < points.size(); ++i) {
        const ImVec2 a = points[i], b = points[(i + 1) % points.size()];
        const ImVec2 ab = {b.x - a.x, b.y - a.y};
        const float len = length(ab);
        for (float s = 0; s < len; s += 2 * dash) {
            const float e = std::min(s + dash, len);
            draw->AddLine({a.x + ab.x * s / len, a.y + ab.y * s / len}, {a.x + ab.x * e / len, a.y + ab.y * e / len}, color, thickness);
        }
    }
}

void draw_glyph(ImDrawList* draw, Glyph glyph, ImVec2 min, ImVec2 max, ImU32 color)
{
    const float s = max.x - min.x, cx = (min.x + max.x) / 2, cy = (min.y + max.y) / 2;
    switch (glyph) {
    case Glyph::circle: draw->AddCircleFilled({cx, cy}, s / 2, color, 16); break;
    case Glyph::triangle: draw->AddTriangleFilled({cx, min.y}, {max.x, max.y}, {min.x, max.y}, color); break;
    case Glyph::diamond: draw->AddQuadFilled({cx, min.y}, {max.x, cy}, {cx, max.y}, {min.x, cy}, color); break;
    case Glyph::square: draw->AddRectFilled({min.x + 0.1f * s, min.y + 0.1f * s}, {max.x - 0.1f * s, max.y - 0.1f * s}, color); break;
    case Glyph::plus:
        draw->AddRectFilled({min.x, cy - 0.17f * s}, {max.x, cy + 0.17f * s}, color);
        draw->AddRectFilled({cx - 0.17f * s, min.y}, {cx + 0.17f * s, max.y}, color);
        break;
    case Glyph::bar: draw->AddRectFilled({min.x, cy - 0.2f * s}, {max.x, cy + 0.2f * s}, color); break;
    case Glyph::triangle_down: draw->AddTriangleFilled({min.x, min.y}, {max.x, min.y}, {cx, max.y}, color); break;
    case Glyph::hourglass:
        draw->AddTriangleFilled({min.x, min.y}, {max.x, min.y}, {cx, cy}, color);
        draw->AddTriangleFilled({cx, cy}, {max.x, max.y}, {min.x, max.y}, color);
        break;
    case Glyph::ring: draw->AddCircle({cx, cy}, 0.4f * s, color, 16, 0.2f * s); break;
    case Glyph::two_dots:
        draw->AddCircleFilled({min.x + 0.25f * s, cy}, 0.22f * s, color, 12);
        draw->AddCircleFilled({max.x - 0.25f * s, cy}, 0.22f * s, color, 12);
        break;
    }
}

// A folded module, as DOT's box3d: the box with its depth drawn up and to the right, a thick
// outline, and badges above its top edge counting its casts (magenta, like a cast's outline)
// and the cast cache's hits (dashed, like a hit's border).
void draw_module_box(ImDrawList* draw, const trace::GraphNode& node, ImVec2 min, ImVec2 max, ImU32 fill, int alpha, float zoom, float outline)
{
    const float depth = std::max(3.0f, 5.0f * zoom);
    const ImU32 edge = IM_COL32(15, 15, 15, alpha);
    draw->AddRectFilled({min.x + depth, min.y - depth}, {max.x + depth, max.y - depth}, IM_COL32(90, 90, 100, alpha));
    draw->AddRect({min.x + depth, min.y - depth}, {max.x + depth, max.y - depth}, edge, 0, 0, 1.0f);
    draw->AddRectFilled(min, max, fill);
    draw->AddRect(min, max, edge, 0, 0, outline);
    ImFont* font = ImGui::GetFont();
    const float size = std::clamp(10.0f * zoom, 0.6f * ImGui::GetFontSize(), 0.95f * ImGui::GetFontSize());
    ImVec2 at = {max.x - 4, min.y - size * 0.6f};  // badges run leftwards from the top-right corner
    auto badge = [&](const std::string& text, ImU32 border, bool dashed) {
        const ImVec2 extent = font->CalcTextSizeA(size, 1e6f, 0, text.c_str());
        const ImVec2 from = {at.x - extent.x - 8, at.y}, to = {at.x, at.y + extent.y + 2};
        draw->AddRectFilled(from, to, IM_COL32(20, 20, 24, alpha), 4);
        if (dashed)
            dashed_outline(draw, rect_points(from, to), border, 1.5f, 3);
        else
            draw->AddRect(from, to, border, 4, 0, 1.5f);
        draw->AddText(font, size, {from.x + 4, from.y + 1}, IM_COL32(235, 235, 235, alpha), text.c_str());
        at.x = from.x - 3;
    };
    if (node.cache_hits > 0) badge(std::to_string(node.cache_hits) + " hit" + (node.cache_hits == 1 ? "" : "s"), IM_COL32(230, 230, 230, alpha), true);
    if (node.casts > 0) badge(std::to_string(node.casts) + " cast" + (node.casts == 1 ? "" : "s"), hex_color(colors::kCastOutline, alpha), false);
}

ImU32 node_fill(const trace::GraphNode& node, bool shown)
{
    const int alpha = shown ? 255 : 40;
    return node.has_dtype ? dtype_fill(node.dtype, alpha) : IM_COL32(220, 220, 220, alpha);
}

void draw_node(ImDrawList* draw, ImFont* graph_font, const trace::GraphNode& node, const Rect& box, const NodeFace& face, bool shown,
               float zoom, const FaceStyle& style)
{
    const int alpha = shown ? 255 : 40;
    const ImVec2 min = im(box.min), max = im(box.max);
    const ImU32 fill = node_fill(node, shown);
    const ImU32 text = node.has_dtype ? dtype_text(node.dtype, shown ? 255 : 90) : IM_COL32(30, 30, 30, alpha);

    std::vector<ImVec2> outline;
    ImU32 outline_color = IM_COL32(15, 15, 15, alpha);
    float outline_width = face.outline;
    switch (node.kind) {
    case trace::NodeKind::module:
        draw_module_box(draw, node, min, max, fill, alpha, zoom, face.outline);
        break;
    case trace::NodeKind::op:
        draw->AddRectFilled(min, max, fill, face.rounding);
        draw->AddRect(min, max, outline_color, face.rounding, 0, outline_width);
        break;
    case trace::NodeKind::cast:
        outline = tag_points(min, max);
        draw->AddConvexPolyFilled(outline.data(), int(outline.size()), fill);
        outline_color = hex_color(colors::kCastOutline, alpha);
        break;
    case trace::NodeKind::collective:
        outline = hexagon_points(min, max);
        draw->AddConvexPolyFilled(outline.data(), int(outline.size()), fill);
        break;
    case trace::NodeKind::tensor:
        outline = ellipse_points(min, max);
        draw->AddConvexPolyFilled(outline.data(), int(outline.size()), fill);
        if (node.is_parameter) outline_color = hex_color(colors::kParameter, alpha);
        else outline_width = std::max(1.0f, 1.2f * zoom);  // a thin dark ring; node_face() allows for a parameter's thick one
        break;
    }
    if (!outline.empty()) {
        if (node.cache == trace::CacheEvent::hit)
            dashed_outline(draw, outline, outline_color, outline_width, 5.0f * std::max(zoom, 0.6f));
        else
            draw->AddPolyline(outline.data(), int(outline.size()), outline_color, ImDrawFlags_Closed, outline_width);
    }
    if (node.has_dtype) draw_glyph(draw, dtype_glyph(node.dtype), im(face.glyph.min), im(face.glyph.max), text);
    // A cast the cache kept for later: a white dot on its top-left corner.
    if (node.cache == trace::CacheEvent::stored) draw->AddCircleFilled(min, std::max(3.5f, 4.5f * zoom), IM_COL32(255, 255, 255, alpha));
    draw_label(draw, graph_font, style.label_points * zoom, face.label, node.label, text, style);
}

}  // namespace tinyamp::viz
