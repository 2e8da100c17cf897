#include "visualizer/app/graph_view.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "visualizer/app/colors.h"

namespace tinyamp::viz {
namespace {

ImVec2 add(ImVec2 a, ImVec2 b) { return {a.x + b.x, a.y + b.y}; }
ImVec2 sub(ImVec2 a, ImVec2 b) { return {a.x - b.x, a.y - b.y}; }
ImVec2 scale(ImVec2 a, float s) { return {a.x * s, a.y * s}; }
float length(ImVec2 a) { return std::sqrt(a.x * a.x + a.y * a.y); }

// Distance from p to the segment ab.
float segment_distance(ImVec2 p, ImVec2 a, ImVec2 b)
{
    const ImVec2 ab = sub(b, a);
    const float len2 = ab.x * ab.x + ab.y * ab.y;
    const float t = len2 > 0 ? std::clamp(((p.x - a.x) * ab.x + (p.y - a.y) * ab.y) / len2, 0.0f, 1.0f) : 0.0f;
    return length(sub(p, add(a, scale(ab, t))));
}

ImVec2 bezier_point(ImVec2 p0, ImVec2 p1, ImVec2 p2, ImVec2 p3, float t)
{
    const float u = 1 - t;
    const float a = u * u * u, b = 3 * u * u * t, c = 3 * u * t * t, d = t * t * t;
    return {a * p0.x + b * p1.x + c * p2.x + d * p3.x, a * p0.y + b * p1.y + c * p2.y + d * p3.y};
}

// Maps layout points (Graphviz points, y down) to the screen.
struct Transform {
    ImVec2 origin;
    float zoom;
    ImVec2 operator()(Vec2 p) const { return {origin.x + p.x * zoom, origin.y + p.y * zoom}; }
};

struct NodeRect {
    ImVec2 min, max;
    ImVec2 center() const { return {(min.x + max.x) / 2, (min.y + max.y) / 2}; }
};

NodeRect node_rect(const NodeBox& box, const Transform& to_screen)
{
    const ImVec2 c = to_screen(box.center);
    const ImVec2 half = {box.size.x * to_screen.zoom / 2, box.size.y * to_screen.zoom / 2};
    return {sub(c, half), add(c, half)};
}

std::vector<ImVec2> ellipse_points(const NodeRect& r, int count = 40)
{
    std::vector<ImVec2> points;
    const ImVec2 c = r.center();
    const float rx = (r.max.x - r.min.x) / 2, ry = (r.max.y - r.min.y) / 2;
    for (int i = 0; i < count; ++i) {
        const float a = 2.0f * 3.14159265f * float(i) / float(count);
        points.push_back({c.x + rx * std::cos(a), c.y + ry * std::sin(a)});
    }
    return points;
}

// DOT's "cds" shape: a tag pointing right, as autocast's casts are drawn in the DOT export.
std::vector<ImVec2> tag_points(const NodeRect& r)
{
    const float notch = (r.max.y - r.min.y) / 2;
    return {r.min, {r.max.x - notch, r.min.y}, {r.max.x, (r.min.y + r.max.y) / 2}, {r.max.x - notch, r.max.y}, {r.min.x, r.max.y}};
}

std::vector<ImVec2> rect_points(const NodeRect& r) { return {r.min, {r.max.x, r.min.y}, r.max, {r.min.x, r.max.y}}; }

void dashed_outline(ImDrawList* draw, const std::vector<ImVec2>& points, ImU32 color, float thickness, float dash)
{
    for (std::size_t i = 0; i < points.size(); ++i) {
        const ImVec2 a = points[i], b = points[(i + 1) % points.size()];
        const float len = length(sub(b, a));
        for (float s = 0; s < len; s += 2 * dash) {
            const float e = std::min(s + dash, len);
            draw->AddLine(add(a, scale(sub(b, a), s / len)), add(a, scale(sub(b, a), e / len)), color, thickness);
        }
    }
}

// The node's label lines at the layout's size (11 points), scaled with the zoom. When that is too
// small to read, only the first line (the op) is written, at a readable size, if it fits the box.
void draw_label(ImDrawList* draw, ImFont* font, float size, const NodeRect& r, const std::vector<std::string>& lines, ImU32 color)
{
    if (lines.empty()) return;
    constexpr float kSmallest = 9.5f;
    // Small text reads better from the UI font (rasterized at 15 px) than from the large one shrunk.
    if (size < 15.0f) font = ImGui::GetFont();
    if (size < kSmallest) {
        const ImVec2 extent = font->CalcTextSizeA(kSmallest, 1e6f, 0, lines.front().c_str());
        if (extent.x > r.max.x - r.min.x - 2 || extent.y > r.max.y - r.min.y) return;
        draw->AddText(font, kSmallest, {r.center().x - extent.x / 2, r.center().y - extent.y / 2}, color, lines.front().c_str());
        return;
    }
    const float line_height = size * 1.15f;
    float y = r.center().y - line_height * float(lines.size()) / 2;
    for (const std::string& line : lines) {
        const ImVec2 extent = font->CalcTextSizeA(size, 1e6f, 0, line.c_str());
        draw->AddText(font, size, {r.center().x - extent.x / 2, y}, color, line.c_str());
        y += line_height;
    }
}

void draw_node(ImDrawList* draw, ImFont* font, const trace::GraphNode& node, const NodeRect& r, bool shown, float zoom)
{
    const int alpha = shown ? 255 : 40;
    const DType dtype = node.has_dtype ? node.dtype : DType::f32;
    const ImU32 fill = node.has_dtype ? dtype_fill(dtype, alpha) : IM_COL32(220, 220, 220, alpha);
    const ImU32 text = node.has_dtype ? dtype_text(dtype, shown ? 255 : 90) : IM_COL32(30, 30, 30, alpha);
    const float line = std::max(1.0f, 1.2f * zoom);

    std::vector<ImVec2> outline;
    ImU32 outline_color = IM_COL32(15, 15, 15, alpha);
    float outline_width = line;
    switch (node.kind) {
    case trace::NodeKind::op:
        draw->AddRectFilled(r.min, r.max, fill, 6.0f * zoom);
        draw->AddRect(r.min, r.max, outline_color, 6.0f * zoom, 0, outline_width);
        break;
    case trace::NodeKind::cast:
        outline = tag_points(r);
        draw->AddConvexPolyFilled(outline.data(), int(outline.size()), fill);
        outline_color = hex_color(colors::kCastOutline, alpha);
        outline_width = std::max(3.0f, 3.0f * zoom);
        break;
    case trace::NodeKind::tensor:
        outline = ellipse_points(r);
        draw->AddConvexPolyFilled(outline.data(), int(outline.size()), fill);
        if (node.is_parameter) {
            outline_color = hex_color(colors::kParameter, alpha);
            outline_width = std::max(3.0f, 3.0f * zoom);
        }
        break;
    }
    if (!outline.empty()) {
        if (node.cache == trace::CacheEvent::hit)
            dashed_outline(draw, outline, outline_color, outline_width, 5.0f * std::max(zoom, 0.6f));
        else
            draw->AddPolyline(outline.data(), int(outline.size()), outline_color, ImDrawFlags_Closed, outline_width);
    }
    // A cast the cache kept for later: a white dot on its top-left corner.
    if (node.cache == trace::CacheEvent::stored) draw->AddCircleFilled(r.min, std::max(3.5f, 4.5f * zoom), IM_COL32(255, 255, 255, alpha));
    draw_label(draw, font, 11.0f * zoom, r, node.label, text);
}

// The legend: one swatch per dtype on a node, then the marks that are not dtypes.
void draw_legend(ImDrawList* draw, ImVec2 at, const trace::TraceGraph& graph)
{
    std::vector<DType> fills;
    for (const trace::GraphNode& node : graph.nodes)
        if (node.has_dtype && std::find(fills.begin(), fills.end(), node.dtype) == fills.end()) fills.push_back(node.dtype);
    std::sort(fills.begin(), fills.end(), [](DType a, DType b) {
        return std::find(kAllDTypes.begin(), kAllDTypes.end(), a) < std::find(kAllDTypes.begin(), kAllDTypes.end(), b);
    });
    const float row = ImGui::GetTextLineHeight() + 4;
    const bool stores = std::any_of(graph.nodes.begin(), graph.nodes.end(), [](const trace::GraphNode& n) { return n.cache == trace::CacheEvent::stored; });
    const int rows = int(fills.size()) + (graph.has_casts ? 1 : 0) + (stores ? 1 : 0) + (graph.has_cache_hits ? 1 : 0) + 1;
    draw->AddRectFilled(at, {at.x + 190, at.y + 8 + row * float(rows)}, IM_COL32(20, 20, 24, 220), 4);
    ImVec2 p = {at.x + 8, at.y + 6};
    auto swatch_row = [&](auto draw_swatch, const char* text) {
        draw_swatch(ImVec2{p.x, p.y + 2}, ImVec2{p.x + 26, p.y + row - 4});
        draw->AddText({p.x + 34, p.y}, IM_COL32(230, 230, 230, 255), text);
        p.y += row;
    };
    for (const DType d : fills)
        swatch_row([&](ImVec2 a, ImVec2 b) { draw->AddRectFilled(a, b, dtype_fill(d), 3); }, dtype_name(d));
    if (graph.has_casts)
        swatch_row([&](ImVec2 a, ImVec2 b) { draw->AddRect(a, b, hex_color(colors::kCastOutline), 0, 0, 2); }, "autocast cast");
    if (stores)
        swatch_row([&](ImVec2 a, ImVec2 b) { draw->AddCircleFilled({(a.x + b.x) / 2, (a.y + b.y) / 2}, 4.5f, IM_COL32(255, 255, 255, 255)); },
                   "cast cache store");
    if (graph.has_cache_hits)
        swatch_row([&](ImVec2 a, ImVec2 b) { dashed_outline(draw, rect_points({a, b}), IM_COL32(230, 230, 230, 255), 1.5f, 3); },
                   "cast cache hit");
    swatch_row(
        [&](ImVec2 a, ImVec2 b) {
            const std::vector<ImVec2> ring = ellipse_points({a, b}, 24);
            draw->AddPolyline(ring.data(), int(ring.size()), hex_color(colors::kParameter), ImDrawFlags_Closed, 2);
        },
        "parameter (weight)");
}

void draw_edge(ImDrawList* draw, const EdgeCurve& curve, const Transform& to_screen, ImU32 color, float width)
{
    for (std::size_t i = 0; i + 3 < curve.points.size(); i += 3)
        draw->AddBezierCubic(to_screen(curve.points[i]), to_screen(curve.points[i + 1]), to_screen(curve.points[i + 2]),
                             to_screen(curve.points[i + 3]), color, width);
    if (!curve.has_arrow || curve.points.empty()) return;
    const ImVec2 tip = to_screen(curve.arrow_tip), from = to_screen(curve.points.back());
    const ImVec2 dir = sub(tip, from);
    const float len = length(dir);
    if (len < 1e-3f) return;
    const ImVec2 n = scale(dir, 1.0f / len), side = {-n.y, n.x};
    const float half = std::max(len * 0.35f, 2.0f);
    draw->AddTriangleFilled(tip, add(from, scale(side, half)), sub(from, scale(side, half)), color);
}

// How close (in pixels) the mouse is to an edge's curve.
float edge_distance(const EdgeCurve& curve, const Transform& to_screen, ImVec2 mouse)
{
    float best = 1e9f;
    for (std::size_t i = 0; i + 3 < curve.points.size(); i += 3) {
        const ImVec2 p0 = to_screen(curve.points[i]), p1 = to_screen(curve.points[i + 1]), p2 = to_screen(curve.points[i + 2]),
                     p3 = to_screen(curve.points[i + 3]);
        ImVec2 previous = p0;
        for (int k = 1; k <= 12; ++k) {
            const ImVec2 next = bezier_point(p0, p1, p2, p3, float(k) / 12);
            best = std::min(best, segment_distance(mouse, previous, next));
            previous = next;
        }
    }
    return best;
}

std::string tensor_line(const trace::TensorInfo& t)
{
    std::string text = std::string(dtype_name(t.dtype)).append(" ").append(shape_str(t.shape));
    if (!t.name.empty()) text.append("  (").append(t.name).append(")");
    return text;
}

// Fits what is drawn (the nodes and the forward/backward boxes; Graphviz's own size also
// counts the DOT's legend, which the GUI draws in the corner instead) into the canvas.
void fit(GraphCamera& camera, const Layout& layout, ImVec2 canvas)
{
    Vec2 lo{1e9f, 1e9f}, hi{-1e9f, -1e9f};
    auto extend = [&](Vec2 a, Vec2 b) {
        lo = {std::min(lo.x, a.x), std::min(lo.y, a.y)};
        hi = {std::max(hi.x, b.x), std::max(hi.y, b.y)};
    };
    for (const NodeBox& n : layout.nodes)
        extend({n.center.x - n.size.x / 2, n.center.y - n.size.y / 2}, {n.center.x + n.size.x / 2, n.center.y + n.size.y / 2});
    for (const ClusterBox& c : layout.clusters) extend(c.min, c.max);
    if (lo.x > hi.x) lo = hi = {0, 0};
    const float margin = 24;
    const Vec2 size = {std::max(hi.x - lo.x, 1.0f), std::max(hi.y - lo.y, 1.0f)};
    camera.zoom = std::clamp(std::min((canvas.x - 2 * margin) / size.x, (canvas.y - 2 * margin) / size.y), 0.05f, 1.5f);
    camera.offset = {(canvas.x - size.x * camera.zoom) / 2 - lo.x * camera.zoom, (canvas.y - size.y * camera.zoom) / 2 - lo.y * camera.zoom};
    camera.fit_pending = false;
}

}  // namespace

void draw_graph_view(Document& document, GraphCamera& camera, ImFont* graph_font)
{
    const Layout& layout = document.layout();
    const trace::TraceGraph& graph = document.graph();
    const Stepper& stepper = document.stepper();

    const ImVec2 canvas_min = ImGui::GetCursorScreenPos();
    const ImVec2 canvas_size = {std::max(ImGui::GetContentRegionAvail().x, 50.0f), std::max(ImGui::GetContentRegionAvail().y, 50.0f)};
    const ImVec2 canvas_max = add(canvas_min, canvas_size);
    if (camera.fit_pending) fit(camera, layout, canvas_size);

    // Input: the whole canvas is one invisible button.
    ImGui::InvisibleButton("graph_canvas", canvas_size, ImGuiButtonFlags_MouseButtonLeft | ImGuiButtonFlags_MouseButtonRight);
    const bool hovered = ImGui::IsItemHovered();
    ImGuiIO& io = ImGui::GetIO();
    if (ImGui::IsItemActive() && (ImGui::IsMouseDragging(ImGuiMouseButton_Left) || ImGui::IsMouseDragging(ImGuiMouseButton_Right)))
        camera.offset = add(camera.offset, io.MouseDelta);
    if (hovered && io.MouseWheel != 0) {  // zoom around the mouse
        const float factor = std::pow(1.15f, io.MouseWheel);
        const float zoom = std::clamp(camera.zoom * factor, 0.03f, 4.0f);
        const ImVec2 mouse = sub(io.MousePos, canvas_min);
        camera.offset = sub(mouse, scale(sub(mouse, camera.offset), zoom / camera.zoom));
        camera.zoom = zoom;
    }
    if (hovered && ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Home))) camera.fit_pending = true;

    const Transform to_screen{add(canvas_min, camera.offset), camera.zoom};
    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->PushClipRect(canvas_min, canvas_max, true);
    draw->AddRectFilled(canvas_min, canvas_max, hex_color(colors::kCanvas));

    for (const ClusterBox& cluster : layout.clusters) {
        const ImVec2 a = to_screen(cluster.min), b = to_screen(cluster.max);
        draw->AddRect(a, b, IM_COL32(110, 110, 120, 255), 6, 0, 1.0f);
        draw->AddText(graph_font, std::max(12.0f, 14.0f * camera.zoom), {a.x + 6, a.y + 4}, IM_COL32(170, 170, 180, 255),
                      cluster.label.c_str());
    }

    // Edges first, so nodes sit on top of their ends.
    int hovered_edge = -1;
    float hovered_distance = 6.0f;
    for (std::size_t i = 0; i < graph.edges.size(); ++i) {
        const bool shown = stepper.edge_shown(int(i));
        const trace::TensorInfo& t = graph.edges[i].tensor;
        draw_edge(draw, layout.edges[i], to_screen, dtype_fill(t.dtype, shown ? 230 : 35), std::max(1.0f, 1.5f * camera.zoom));
        if (hovered) {
            const float d = edge_distance(layout.edges[i], to_screen, io.MousePos);
            if (d < hovered_distance) {
                hovered_distance = d;
                hovered_edge = int(i);
            }
        }
    }

    int hovered_node = -1;
    for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
        const NodeRect r = node_rect(layout.nodes[i], to_screen);
        draw_node(draw, graph_font, graph.nodes[i], r, stepper.node_shown(int(i)), camera.zoom);
        if (hovered && ImGui::IsMouseHoveringRect(r.min, r.max)) hovered_node = int(i);
    }

    // The timeline's current event and the inspected node, ringed.
    auto ring = [&](int node, const char* color, float grow, float width) {
        if (node < 0) return;
        NodeRect r = node_rect(layout.nodes[std::size_t(node)], to_screen);
        r.min = sub(r.min, {grow, grow});
        r.max = add(r.max, {grow, grow});
        draw->AddRect(r.min, r.max, hex_color(color), 8, 0, width);
    };
    ring(stepper.current_node(), colors::kCurrent, 4, 2.5f);
    if (document.selected() >= 0) ring(document.selected(), colors::kSelected, 8, 2.0f);

    draw_legend(draw, {canvas_min.x + 8, canvas_min.y + 8}, graph);
    draw->PopClipRect();

    if (hovered_node >= 0) {
        const trace::GraphNode& node = graph.nodes[std::size_t(hovered_node)];
        ImGui::BeginTooltip();
        for (const std::string& line : node.label) ImGui::TextUnformatted(line.c_str());
        if (!node.tooltip.empty()) {
            ImGui::Separator();
            ImGui::PushTextWrapPos(ImGui::GetFontSize() * 28);
            ImGui::TextUnformatted(node.tooltip.c_str());
            ImGui::PopTextWrapPos();
        }
        ImGui::EndTooltip();
        if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) document.select(hovered_node);
    } else if (hovered_edge >= 0) {
        const trace::GraphEdge& edge = graph.edges[std::size_t(hovered_edge)];
        ImGui::BeginTooltip();
        ImGui::TextUnformatted(tensor_line(edge.tensor).c_str());
        ImGui::TextDisabled("%s -> %s (input %d)", graph.nodes[std::size_t(edge.from)].label.front().c_str(),
                            graph.nodes[std::size_t(edge.to)].label.front().c_str(), edge.slot);
        ImGui::EndTooltip();
    } else if (hovered && ImGui::IsMouseClicked(ImGuiMouseButton_Left)) {
        document.select(-1);  // a click on empty canvas: the inspector follows the timeline again
    }
}

}  // namespace tinyamp::viz
