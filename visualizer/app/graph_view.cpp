#include "visualizer/app/graph_view.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "visualizer/app/colors.h"
#include "visualizer/app/ui_targets.h"

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

// A collapsed module, as DOT's box3d: the box with its depth drawn up and to the right, a thick
// outline, and badges on its top edge counting its casts (magenta, like a cast's outline) and
// the cast cache's hits (dashed).
void draw_module_box(ImDrawList* draw, const trace::GraphNode& node, const NodeRect& r, ImU32 fill, int alpha, float zoom)
{
    const float depth = std::max(3.0f, 5.0f * zoom);
    const ImU32 edge = IM_COL32(15, 15, 15, alpha);
    draw->AddRectFilled({r.min.x + depth, r.min.y - depth}, {r.max.x + depth, r.max.y - depth}, IM_COL32(90, 90, 100, alpha));
    draw->AddRect({r.min.x + depth, r.min.y - depth}, {r.max.x + depth, r.max.y - depth}, edge, 0, 0, 1.0f);
    draw->AddRectFilled(r.min, r.max, fill);
    draw->AddRect(r.min, r.max, edge, 0, 0, std::max(1.5f, 2.0f * zoom));
    const float size = std::clamp(10.0f * zoom, 9.0f, 14.0f);
    ImVec2 at = {r.max.x - 4, r.min.y - size * 0.6f};  // badges run leftwards from the top-right corner
    auto badge = [&](const std::string& text, ImU32 outline, bool dashed) {
        const ImVec2 extent = ImGui::GetFont()->CalcTextSizeA(size, 1e6f, 0, text.c_str());
        const ImVec2 min = {at.x - extent.x - 8, at.y}, max = {at.x, at.y + extent.y + 2};
        draw->AddRectFilled(min, max, IM_COL32(20, 20, 24, alpha), 4);
        if (dashed)
            dashed_outline(draw, rect_points({min, max}), outline, 1.5f, 3);
        else
            draw->AddRect(min, max, outline, 4, 0, 1.5f);
        draw->AddText(ImGui::GetFont(), size, {min.x + 4, min.y + 1}, IM_COL32(235, 235, 235, alpha), text.c_str());
        at.x = min.x - 3;
    };
    if (node.cache_hits > 0) badge(std::to_string(node.cache_hits) + " hit" + (node.cache_hits == 1 ? "" : "s"), IM_COL32(230, 230, 230, alpha), true);
    if (node.casts > 0) badge(std::to_string(node.casts) + " cast" + (node.casts == 1 ? "" : "s"), hex_color(colors::kCastOutline, alpha), false);
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
    case trace::NodeKind::module:
        draw_module_box(draw, node, r, fill, alpha, zoom);
        break;
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

// What the legend lists: the dtypes on nodes, in the palette's order, and which marks appear.
struct LegendRows {
    std::vector<DType> fills;
    bool stores = false;
    int count = 0;
};

LegendRows legend_rows(const trace::TraceGraph& graph)
{
    LegendRows rows;
    for (const trace::GraphNode& node : graph.nodes)
        if (node.has_dtype && std::find(rows.fills.begin(), rows.fills.end(), node.dtype) == rows.fills.end()) rows.fills.push_back(node.dtype);
    std::sort(rows.fills.begin(), rows.fills.end(), [](DType a, DType b) {
        return std::find(kAllDTypes.begin(), kAllDTypes.end(), a) < std::find(kAllDTypes.begin(), kAllDTypes.end(), b);
    });
    rows.stores = std::any_of(graph.nodes.begin(), graph.nodes.end(), [](const trace::GraphNode& n) { return n.cache == trace::CacheEvent::stored; });
    rows.count = int(rows.fills.size()) + (graph.has_casts ? 1 : 0) + (rows.stores ? 1 : 0) + (graph.has_cache_hits ? 1 : 0) + 1;
    return rows;
}

float legend_row_height() { return ImGui::GetTextLineHeight() + 4; }

// The legend's box, from the canvas' top-left corner (8 px in) to its far corner.
ImVec2 legend_corner(const trace::TraceGraph& graph) { return {8 + 190, 8 + 8 + legend_row_height() * float(legend_rows(graph).count)}; }

// The legend: one swatch per dtype on a node, then the marks that are not dtypes.
void draw_legend(ImDrawList* draw, ImVec2 at, const trace::TraceGraph& graph)
{
    const LegendRows rows = legend_rows(graph);
    const std::vector<DType>& fills = rows.fills;
    const bool stores = rows.stores;
    const float row = legend_row_height();
    draw->AddRectFilled(at, {at.x + 190, at.y + 8 + row * float(rows.count)}, IM_COL32(20, 20, 24, 220), 4);
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

// Whether the canvas shows every node and cluster (then the minimap would add nothing).
bool whole_drawing_shown(const Camera& view, const Rect& all, Vec2 canvas)
{
    const Rect seen = visible_region(view, canvas);
    return all.min.x >= seen.min.x && all.min.y >= seen.min.y && all.max.x <= seen.max.x && all.max.y <= seen.max.y;
}

// The minimap in the canvas' bottom-right corner, shown while part of the graph is out of view:
// every node as a speck of its dtype's color and the part the canvas shows as a white frame. A
// click or drag on it centres the view there. `bounds` is drawing_bounds(layout).
void draw_minimap(ImDrawList* draw, const Layout& layout, const Rect& bounds, const trace::TraceGraph& graph, Camera& view, ImVec2 canvas_min,
                  ImVec2 canvas_size, bool& dragging)
{
    const Minimap map = make_minimap(bounds, {160, std::min(160.0f, canvas_size.y / 3)});
    const ImVec2 at = {canvas_min.x + canvas_size.x - map.size.x - 12, canvas_min.y + canvas_size.y - map.size.y - 12};
    auto to_screen = [&](Vec2 p) { const Vec2 m = map.to_map(p); return ImVec2{at.x + m.x, at.y + m.y}; };
    draw->AddRectFilled(sub(at, {4, 4}), add(at, {map.size.x + 4, map.size.y + 4}), IM_COL32(20, 20, 24, 220), 4);
    for (std::size_t i = 0; i < layout.nodes.size(); ++i) {
        const Rect box = node_bounds(layout.nodes[i]);
        const trace::GraphNode& node = graph.nodes[i];
        ImVec2 a = to_screen(box.min), b = to_screen(box.max);
        b = {std::max(b.x, a.x + 1.5f), std::max(b.y, a.y + 1.5f)};  // never thinner than a pixel and a half
        draw->AddRectFilled(a, b, node.has_dtype ? dtype_fill(node.dtype) : IM_COL32(220, 220, 220, 255));
    }
    const Rect seen = visible_region(view, {canvas_size.x, canvas_size.y});
    draw->PushClipRect(sub(at, {2, 2}), add(at, {map.size.x + 2, map.size.y + 2}), true);
    draw->AddRect(to_screen(seen.min), to_screen(seen.max), IM_COL32(255, 255, 255, 255), 0, 0, 1.5f);
    draw->PopClipRect();

    const ImGuiIO& io = ImGui::GetIO();
    const bool over = ImGui::IsMouseHoveringRect(at, add(at, {map.size.x, map.size.y}));
    if (over && ImGui::IsMouseClicked(ImGuiMouseButton_Left)) dragging = true;
    if (!ImGui::IsMouseDown(ImGuiMouseButton_Left)) dragging = false;
    if (dragging) {
        const ImVec2 m = {std::clamp(io.MousePos.x - at.x, 0.0f, map.size.x), std::clamp(io.MousePos.y - at.y, 0.0f, map.size.y)};
        view = center_on(view, map.to_layout({m.x, m.y}), {canvas_size.x, canvas_size.y});
    }
}

// Whether `key` (a letter, either case) was typed this frame outside a text field. ImGui 1.86
// names only a few letter keys, so the typed characters are read instead.
bool typed(const ImGuiIO& io, char key)
{
    if (io.WantTextInput) return false;
    for (const ImWchar c : io.InputQueueCharacters)
        if (c == ImWchar(key) || c == ImWchar(key - 'a' + 'A')) return true;
    return false;
}

// The row above the canvas: fit, follow, legend and minimap switches, and the zoom.
void draw_toolbar(GraphCamera& camera)
{
    if (ImGui::SmallButton("Fit (F)")) camera.fit_pending = true;
    note_item("Fit (F)");
    ImGui::SameLine();
    ImGui::Checkbox("Follow timeline", &camera.follow_timeline);
    ImGui::SameLine();
    ImGui::Checkbox("Legend", &camera.show_legend);
    ImGui::SameLine();
    ImGui::Checkbox("Minimap", &camera.show_minimap);
    ImGui::SameLine();
    ImGui::TextDisabled("zoom %.0f%%", double(camera.view.zoom) * 100.0);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("wheel: zoom about the cursor; drag: pan; F or Home: fit; the minimap appears when part of the graph is out of view");
}

// What a frame asked of the modules: done after drawing, since it builds the graph again.
struct ModuleRequest {
    enum class Kind { none, expand, collapse, set } kind = Kind::none;
    std::string module;               // expand / collapse
    std::set<std::string> collapsed;  // set
};

// The modules C folds: those folded at first, or (when none was) every top-level module.
std::set<std::string> folded_modules(const Document& document)
{
    if (!document.first_collapsed().empty()) return document.first_collapsed();
    std::set<std::string> top;
    for (const std::string& path : document.graph().modules)
        if (path.find('.') == std::string::npos) top.insert(path);
    return top;
}

// Beside the toolbar, for a trace that ran in modules: fold and unfold them all (C, E).
void draw_module_buttons(const Document& document, ModuleRequest& request)
{
    if (document.graph().modules.empty()) return;
    // On the toolbar's row when they fit there, else on a row of their own.
    const ImGuiStyle& style = ImGui::GetStyle();
    const float width = ImGui::CalcTextSize("Fold modules (C)Unfold all (E)").x + 4 * style.FramePadding.x + 2 * style.ItemSpacing.x;
    ImGui::SameLine();
    if (ImGui::GetContentRegionAvail().x < width) ImGui::NewLine();
    if (ImGui::SmallButton("Fold modules (C)")) request = {ModuleRequest::Kind::set, "", folded_modules(document)};
    note_item("Fold modules (C)");
    ImGui::SameLine();
    if (ImGui::SmallButton("Unfold all (E)")) request = {ModuleRequest::Kind::set, "", {}};
    note_item("Unfold all (E)");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("click a module's box to unfold it, the title of its frame to fold it again");
}

// A module cluster's title, where a click folds it: its text's box at the frame's top-left, or
// nothing when the zoom leaves no room for the text (Graphviz keeps 14 points for it).
bool module_title(const ClusterBox& cluster, ImVec2 frame_min, float zoom, ImFont* font, ImVec2& min, ImVec2& max, float& size)
{
    size = 14.0f * zoom;
    if (cluster.module.empty() || size < 9.0f) return false;
    const ImVec2 extent = font->CalcTextSizeA(size, 1e6f, 0, cluster.label.c_str());
    min = {frame_min.x + 6, frame_min.y + 2};
    max = {min.x + extent.x, min.y + extent.y};
    return true;
}

// Applies a frame's request, then looks at the module unfolded (keeping the zoom), or fits the
// graph after all modules changed.
void apply_module_request(Document& document, GraphCamera& camera, const ModuleRequest& request, Vec2 canvas)
{
    switch (request.kind) {
    case ModuleRequest::Kind::none: return;
    case ModuleRequest::Kind::expand: document.expand(request.module); break;
    case ModuleRequest::Kind::collapse: document.collapse(request.module); break;
    case ModuleRequest::Kind::set:
        document.set_collapsed(request.collapsed);
        camera.fit_pending = true;
        break;
    }
    camera.followed_node = document.stepper().current_node();  // the node indices changed: no jump
    if (request.kind != ModuleRequest::Kind::expand) return;
    for (const ClusterBox& cluster : document.layout().clusters)
        if (cluster.module == request.module)
            return void(camera.view = center_on(camera.view, {(cluster.min.x + cluster.max.x) / 2, (cluster.min.y + cluster.max.y) / 2}, canvas));
}

}  // namespace

void draw_graph_view(Document& document, GraphCamera& camera, ImFont* graph_font)
{
    const Layout& layout = document.layout();
    const trace::TraceGraph& graph = document.graph();
    const Stepper& stepper = document.stepper();

    draw_toolbar(camera);
    ModuleRequest module_request;
    draw_module_buttons(document, module_request);
    const ImVec2 canvas_min = ImGui::GetCursorScreenPos();
    camera.canvas_origin = {canvas_min.x, canvas_min.y};
    const ImVec2 canvas_size = {std::max(ImGui::GetContentRegionAvail().x, 50.0f), std::max(ImGui::GetContentRegionAvail().y, 50.0f)};
    const ImVec2 canvas_max = add(canvas_min, canvas_size);
    const Vec2 canvas = {canvas_size.x, canvas_size.y};
    const Rect bounds = drawing_bounds(layout);  // once a frame: the fit, the minimap and whether to show it use it
    if (camera.fit_pending) {  // the whole graph, none of it under the legend
        const ImVec2 legend = camera.show_legend ? legend_corner(graph) : ImVec2{0, 0};
        camera.view = fit(bounds, canvas, {legend.x, legend.y});
        if (camera.zoom_after_fit != 1.0f && stepper.current_node() >= 0) {  // --zoom: closer, on the timeline's node
            camera.view.zoom = std::clamp(camera.view.zoom * camera.zoom_after_fit, kMinZoom, kMaxZoom);
            const Rect node = node_bounds(layout.nodes[std::size_t(stepper.current_node())]);
            camera.view = center_on(camera.view, {(node.min.x + node.max.x) / 2, (node.min.y + node.max.y) / 2}, canvas);
        }
        camera.zoom_after_fit = 1.0f;
        camera.fit_pending = false;
        camera.followed_node = stepper.current_node();
    }
    // The timeline moved to a node out of sight: bring it in, keeping the zoom.
    if (camera.follow_timeline && stepper.current_node() >= 0 && stepper.current_node() != camera.followed_node)
        camera.view = follow(camera.view, node_bounds(layout.nodes[std::size_t(stepper.current_node())]), canvas);
    camera.followed_node = stepper.current_node();

    // Input: the whole canvas is one invisible button.
    ImGui::InvisibleButton("graph_canvas", canvas_size, ImGuiButtonFlags_MouseButtonLeft | ImGuiButtonFlags_MouseButtonRight);
    const bool hovered = ImGui::IsItemHovered();
    ImGuiIO& io = ImGui::GetIO();
    if (ImGui::IsItemActive() && !camera.minimap_dragging &&
        (ImGui::IsMouseDragging(ImGuiMouseButton_Left) || ImGui::IsMouseDragging(ImGuiMouseButton_Right)))
        camera.view.offset = {camera.view.offset.x + io.MouseDelta.x, camera.view.offset.y + io.MouseDelta.y};
    if (hovered && io.MouseWheel != 0)  // zoom about the mouse
        camera.view = zoom_about(camera.view, {io.MousePos.x - canvas_min.x, io.MousePos.y - canvas_min.y}, std::pow(1.15f, io.MouseWheel));
    if (hovered && (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Home)) || typed(io, 'f'))) camera.fit_pending = true;
    if (hovered && !graph.modules.empty() && typed(io, 'c')) module_request = {ModuleRequest::Kind::set, "", folded_modules(document)};
    if (hovered && !graph.modules.empty() && typed(io, 'e')) module_request = {ModuleRequest::Kind::set, "", {}};

    const Transform to_screen{{canvas_min.x + camera.view.offset.x, canvas_min.y + camera.view.offset.y}, camera.view.zoom};
    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->PushClipRect(canvas_min, canvas_max, true);
    draw->AddRectFilled(canvas_min, canvas_max, hex_color(colors::kCanvas));

    // Clusters: forward and backward, and the frame of each unfolded module with its title (where
    // a click folds it), the inner ones last.
    int hovered_title = -1;
    for (std::size_t i = 0; i < layout.clusters.size(); ++i) {
        const ClusterBox& cluster = layout.clusters[i];
        const ImVec2 a = to_screen(cluster.min), b = to_screen(cluster.max);
        if (cluster.module.empty()) {
            draw->AddRect(a, b, IM_COL32(110, 110, 120, 255), 6, 0, 1.0f);
            draw->AddText(graph_font, std::max(12.0f, 14.0f * camera.view.zoom), {a.x + 6, a.y + 4}, IM_COL32(170, 170, 180, 255),
                          cluster.label.c_str());
            continue;
        }
        draw->AddRect(a, b, IM_COL32(85, 85, 100, 255), 4, 0, 1.0f);
        ImVec2 title_min, title_max;
        float size = 0;
        if (!module_title(cluster, a, camera.view.zoom, graph_font, title_min, title_max, size)) continue;
        const bool over = hovered && ImGui::IsMouseHoveringRect(title_min, title_max);
        if (over) hovered_title = int(i);
        draw->AddText(size < 15.0f ? ImGui::GetFont() : graph_font, size, title_min, over ? IM_COL32(255, 255, 255, 255) : IM_COL32(160, 160, 175, 255),
                      cluster.label.c_str());
    }

    // Edges first, so nodes sit on top of their ends.
    int hovered_edge = -1;
    float hovered_distance = 6.0f;
    for (std::size_t i = 0; i < graph.edges.size(); ++i) {
        const bool shown = stepper.edge_shown(int(i));
        const trace::TensorInfo& t = graph.edges[i].tensor;
        draw_edge(draw, layout.edges[i], to_screen, dtype_fill(t.dtype, shown ? 230 : 35), std::max(1.0f, 1.5f * camera.view.zoom));
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
        draw_node(draw, graph_font, graph.nodes[i], r, stepper.node_shown(int(i)), camera.view.zoom);
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

    if (camera.show_legend) draw_legend(draw, {canvas_min.x + 8, canvas_min.y + 8}, graph);
    if (camera.show_minimap && !whole_drawing_shown(camera.view, bounds, canvas))
        draw_minimap(draw, layout, bounds, graph, camera.view, canvas_min, canvas_size, camera.minimap_dragging);
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
        if (ImGui::IsMouseClicked(ImGuiMouseButton_Left) && !camera.minimap_dragging) {
            if (node.kind == trace::NodeKind::module)  // a folded module: unfold it
                module_request = {ModuleRequest::Kind::expand, node.module, {}};
            else
                document.select(hovered_node);
        }
    } else if (hovered_title >= 0) {
        const ClusterBox& cluster = layout.clusters[std::size_t(hovered_title)];
        ImGui::SetTooltip("module %s: click to fold it into one box", cluster.label.c_str());
        if (ImGui::IsMouseClicked(ImGuiMouseButton_Left) && !camera.minimap_dragging)
            module_request = {ModuleRequest::Kind::collapse, cluster.module, {}};
    } else if (hovered_edge >= 0) {
        const trace::GraphEdge& edge = graph.edges[std::size_t(hovered_edge)];
        ImGui::BeginTooltip();
        ImGui::TextUnformatted(tensor_line(edge.tensor).c_str());
        ImGui::TextDisabled("%s -> %s (input %d)", graph.nodes[std::size_t(edge.from)].label.front().c_str(),
                            graph.nodes[std::size_t(edge.to)].label.front().c_str(), edge.slot);
        ImGui::EndTooltip();
    } else if (hovered && !camera.minimap_dragging && ImGui::IsMouseClicked(ImGuiMouseButton_Left)) {
        document.select(-1);  // a click on empty canvas: the inspector follows the timeline again
    }
    apply_module_request(document, camera, module_request, canvas);
}

}  // namespace tinyamp::viz
