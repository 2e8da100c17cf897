#include "visualizer/app/graph_view.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "visualizer/app/colors.h"
#include "visualizer/app/key_pressed.h"
#include "visualizer/app/legend.h"
#include "visualizer/app/node_painter.h"
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

ImVec2 im(Vec2 v) { return {v.x, v.y}; }

// A node's box on the screen, in pixels.
Rect screen_box(const NodeBox& box, const Transform& to_screen)
{
    const ImVec2 c = to_screen(box.center);
    const Vec2 half = {box.size.x * to_screen.zoom / 2, box.size.y * to_screen.zoom / 2};
    return {{c.x - half.x, c.y - half.y}, {c.x + half.x, c.y + half.y}};
}

Rect shifted(const Rect& r, Vec2 by) { return {{r.min.x + by.x, r.min.y + by.y}, {r.max.x + by.x, r.max.y + by.y}}; }

// The box around an edge's control points (and arrow tip) on the screen: the curve lies inside it.
Rect curve_box(const EdgeCurve& curve, const Transform& to_screen)
{
    Rect r{{1e9f, 1e9f}, {-1e9f, -1e9f}};
    auto extend = [&](Vec2 p) {
        const ImVec2 q = to_screen(p);
        r.min = {std::min(r.min.x, q.x), std::min(r.min.y, q.y)};
        r.max = {std::max(r.max.x, q.x + 1), std::max(r.max.y, q.y + 1)};
    };
    for (const Vec2 p : curve.points) extend(p);
    if (curve.has_arrow) extend(curve.arrow_tip);
    return r;
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
bool whole_drawing_shown(const Camera& view, const Rect& all, Vec2 canvas) { return contains(visible_region(view, canvas), all); }

// The legend's box, in canvas pixels (half an em in from the corner), open or `folded` to its
// header, or none when it is hidden.
Rect legend_box(const trace::TraceGraph& graph, const GraphCamera& camera, bool folded)
{
    if (!camera.show_legend) return {};
    const float em = ImGui::GetFontSize();
    const ImVec2 size = legend_size(graph, folded);
    return {{em / 2, em / 2}, {em / 2 + size.x, em / 2 + size.y}};
}
Rect legend_box(const trace::TraceGraph& graph, const GraphCamera& camera) { return legend_box(graph, camera, camera.legend_folded); }

// The minimap's map of `bounds`, and its frame (the map with a border) under the legend, in canvas
// pixels. Its lengths follow the UI font's size (the UI scale).
struct MinimapPlace {
    Minimap map;
    Rect frame;
};
MinimapPlace place_minimap(const Rect& bounds, Vec2 canvas, const Rect& legend)
{
    const float em = ImGui::GetFontSize(), border = 0.25f * em;
    MinimapPlace place;
    place.map = make_minimap(bounds, {10.7f * em, std::min(10.7f * em, canvas.y / 3)});
    const Vec2 at = {em / 2, legend.max.y + em / 2};
    place.frame = {at, {at.x + place.map.size.x + 2 * border, at.y + place.map.size.y + 2 * border}};
    return place;
}

// The first view (the fit, at no less than the readable zoom) with `focus`, the node the
// inspector shows, in it and no node under the legend or the minimap; the legend folded to its
// header when only that leaves room for the focus (a small window); when not even that does, the
// drawing's top-left clear of the corner. With --zoom, its factor and centred on `focus`.
void set_first_view(GraphCamera& camera, const Layout& layout, const trace::TraceGraph& graph, int focus, const Rect& bounds, Vec2 canvas)
{
    const float readable = readable_zoom(layout, graph, text_width_at_size_1, face_style());
    auto overlays = [&](bool folded) {
        const Rect legend = legend_box(graph, camera, folded);
        return CornerOverlays{legend, camera.show_minimap ? place_minimap(bounds, canvas, legend).frame : Rect{}};
    };
    std::optional<Camera> view = first_view_showing(layout, focus, canvas, overlays(camera.legend_folded), readable);
    if (!view && camera.show_legend && !camera.legend_folded && (view = first_view_showing(layout, focus, canvas, overlays(true), readable)))
        camera.legend_folded = true;
    if (!view) {
        const CornerOverlays corner = overlays(camera.legend_folded);
        view = first_view(bounds, canvas, corner.legend.max, readable, {std::max(corner.legend.max.x, corner.minimap.max.x), corner.minimap.max.y});
    }
    camera.view = *view;
    if (camera.center_first_view && focus >= 0) {  // --zoom: on the inspected node, closer or farther
        camera.view.zoom = std::clamp(camera.view.zoom * camera.zoom_after_fit, kMinZoom, kMaxZoom);
        const Rect node = node_bounds(layout.nodes[std::size_t(focus)]);
        camera.view = center_on(camera.view, {(node.min.x + node.max.x) / 2, (node.min.y + node.max.y) / 2}, canvas);
    }
}

// The minimap, shown while part of the graph is out of view: every node as a speck of its dtype's
// color and the part the canvas shows as a white frame. A click or drag on it centres the view
// there. `bounds` is drawing_bounds(layout); `place` is in canvas pixels.
void draw_minimap(ImDrawList* draw, const Layout& layout, const trace::TraceGraph& graph, Camera& view, ImVec2 canvas_min, Vec2 canvas,
                  const MinimapPlace& place, bool& dragging)
{
    const Minimap& map = place.map;
    const ImVec2 frame_min = add(canvas_min, im(place.frame.min)), frame_max = add(canvas_min, im(place.frame.max));
    const ImVec2 at = {(frame_min.x + frame_max.x - map.size.x) / 2, (frame_min.y + frame_max.y - map.size.y) / 2};
    auto to_screen = [&](Vec2 p) { const Vec2 m = map.to_map(p); return ImVec2{at.x + m.x, at.y + m.y}; };
    draw->AddRectFilled(frame_min, frame_max, IM_COL32(20, 20, 24, 220), 4);
    for (std::size_t i = 0; i < layout.nodes.size(); ++i) {
        const Rect box = node_bounds(layout.nodes[i]);
        ImVec2 a = to_screen(box.min), b = to_screen(box.max);
        b = {std::max(b.x, a.x + 1.5f), std::max(b.y, a.y + 1.5f)};  // never thinner than a pixel and a half
        draw->AddRectFilled(a, b, node_fill(graph.nodes[i], true));
    }
    const Rect seen = visible_region(view, canvas);
    draw->PushClipRect(sub(at, {2, 2}), add(at, {map.size.x + 2, map.size.y + 2}), true);
    draw->AddRect(to_screen(seen.min), to_screen(seen.max), IM_COL32(255, 255, 255, 255), 0, 0, 1.5f);
    draw->PopClipRect();

    const ImGuiIO& io = ImGui::GetIO();
    const bool over = ImGui::IsMouseHoveringRect(at, add(at, {map.size.x, map.size.y}));
    if (over && ImGui::IsMouseClicked(ImGuiMouseButton_Left)) dragging = true;
    if (!ImGui::IsMouseDown(ImGuiMouseButton_Left)) dragging = false;
    if (dragging) {
        const ImVec2 m = {std::clamp(io.MousePos.x - at.x, 0.0f, map.size.x), std::clamp(io.MousePos.y - at.y, 0.0f, map.size.y)};
        view = center_on(view, map.to_layout({m.x, m.y}), canvas);
    }
}

// Where the title of the forward or backward frame (corners `a`, `b`, window pixels) is written:
// at its top-left corner, moved right along the frame's top while that corner is left of the
// canvas or under the legend or the minimap (`overlays`, window pixels), so the title stays read.
ImVec2 pass_title_at(const ClusterBox& cluster, ImVec2 a, ImVec2 b, float zoom, ImFont* font, ImVec2 canvas_min, std::initializer_list<Rect> overlays)
{
    const float size = std::max(12.0f, 14.0f * zoom);
    const ImVec2 extent = font->CalcTextSizeA(size, 1e6f, 0, cluster.label.c_str());
    ImVec2 at = {std::max(a.x + 6, canvas_min.x + 6), a.y + 4};
    for (const Rect& overlay : overlays)
        if (overlay.width() > 0 && overlaps({{at.x, at.y}, {at.x + extent.x, at.y + extent.y}}, overlay)) at.x = std::max(at.x, overlay.max.x + 6);
    return {std::min(at.x, std::max(a.x + 6, b.x - 6 - extent.x)), at.y};
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
    trace::Phase phase = trace::Phase::forward;  // expand: the clicked box's pass, whose new frame the view centres on
};

// The modules C folds: those folded at first, or (when none was) every top-level module.
std::set<std::string> folded_modules(const Document& document)
{
    return document.first_collapsed().empty() ? top_level_modules(document.graph()) : document.first_collapsed();
}

// Beside the toolbar, for a trace that ran in modules: fold and unfold them all (C, E).
void draw_module_buttons(const Document& document, ModuleRequest& request)
{
    if (document.graph().modules.empty()) return;
    // On the toolbar's row when they fit there, else on a row of their own.
    const ImGuiStyle& style = ImGui::GetStyle();
    const float width = ImGui::CalcTextSize("Fold (C)Unfold (E)").x + 4 * style.FramePadding.x + 2 * style.ItemSpacing.x;
    ImGui::SameLine();
    if (ImGui::GetContentRegionAvail().x < width) ImGui::NewLine();
    constexpr const char* kHow = "modules: click a folded module's box to unfold it, the title of its frame to fold it again";
    if (ImGui::SmallButton("Fold (C)")) request = {ModuleRequest::Kind::set, "", folded_modules(document)};
    note_item("Fold (C)");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("fold the model's layers, one box each (C: the frame under the mouse, if any); %s", kHow);
    ImGui::SameLine();
    if (ImGui::SmallButton("Unfold (E)")) request = {ModuleRequest::Kind::set, "", {}};
    note_item("Unfold (E)");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("unfold every module (E: the folded box under the mouse, if any); %s", kHow);
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
    const char phase = request.phase == trace::Phase::forward ? 'f' : 'b';  // the frame where the clicked box was
    for (const ClusterBox& cluster : document.layout().clusters)
        if (cluster.module == request.module && cluster.name.back() == phase)
            return void(camera.view = center_on(camera.view, {(cluster.min.x + cluster.max.x) / 2, (cluster.min.y + cluster.max.y) / 2}, canvas));
}

// The canvas: the window's remaining area (at least 50 pixels each way), in window pixels.
struct Canvas {
    ImVec2 min, max;
    Vec2 size;
    Rect box() const { return {{min.x, min.y}, {max.x, max.y}}; }
};

// Takes the rest of the window for the canvas, and tells the camera where it is.
Canvas place_canvas(GraphCamera& camera)
{
    const ImVec2 min = ImGui::GetCursorScreenPos();
    const ImVec2 size = {std::max(ImGui::GetContentRegionAvail().x, 50.0f), std::max(ImGui::GetContentRegionAvail().y, 50.0f)};
    camera.canvas_origin = {min.x, min.y};
    camera.canvas_size = {size.x, size.y};
    return {min, add(min, size), {size.x, size.y}};
}

// Fits the view when asked (the whole graph if it can be read, none of it under the legend or the
// minimap); then, when the timeline moved to a node out of sight, brings it in, keeping the zoom.
void aim_view(GraphCamera& camera, const Document& document, const Rect& bounds, Vec2 canvas)
{
    const Layout& layout = document.layout();
    const Stepper& stepper = document.stepper();
    if (camera.fit_pending) {
        set_first_view(camera, layout, document.graph(), document.selected() >= 0 ? document.selected() : stepper.current_node(), bounds, canvas);
        camera.zoom_after_fit = 1.0f;
        camera.center_first_view = false;
        camera.fit_pending = false;
        camera.followed_node = stepper.current_node();
    }
    if (camera.follow_timeline && stepper.current_node() >= 0 && stepper.current_node() != camera.followed_node)
        camera.view = follow(camera.view, node_bounds(layout.nodes[std::size_t(stepper.current_node())]), canvas);
    camera.followed_node = stepper.current_node();
}

// What the mouse and the keys did on the canvas this frame.
struct CanvasInput {
    bool hovered = false;     // the mouse is over the canvas
    bool fold_key = false;    // C, in a trace with modules
    bool unfold_key = false;  // E, the same
};

// The whole canvas is one invisible button: a drag on it pans, the wheel zooms about the mouse,
// F or Home fits.
CanvasInput read_canvas_input(GraphCamera& camera, const Canvas& canvas, bool has_modules)
{
    ImGui::InvisibleButton("graph_canvas", {canvas.size.x, canvas.size.y}, ImGuiButtonFlags_MouseButtonLeft | ImGuiButtonFlags_MouseButtonRight);
    const bool hovered = ImGui::IsItemHovered();
    ImGuiIO& io = ImGui::GetIO();
    if (ImGui::IsItemActive() && !camera.minimap_dragging &&
        (ImGui::IsMouseDragging(ImGuiMouseButton_Left) || ImGui::IsMouseDragging(ImGuiMouseButton_Right)))
        camera.view.offset = {camera.view.offset.x + io.MouseDelta.x, camera.view.offset.y + io.MouseDelta.y};
    if (hovered && io.MouseWheel != 0)
        camera.view = zoom_about(camera.view, {io.MousePos.x - canvas.min.x, io.MousePos.y - canvas.min.y}, std::pow(1.15f, io.MouseWheel));
    if (hovered && (key_pressed(ImGuiKey_Home) || typed(io, 'f'))) camera.fit_pending = true;
    return {hovered, hovered && has_modules && typed(io, 'c'), hovered && has_modules && typed(io, 'e')};
}

// The legend and the minimap over the canvas' corner, in window pixels (an empty box when hidden).
struct CornerAreas {
    Rect legend;
    bool minimap_shown = false;
    MinimapPlace minimap_place;  // in canvas pixels
    Rect minimap;
};

CornerAreas corner_areas(const trace::TraceGraph& graph, const GraphCamera& camera, const Rect& bounds, Vec2 canvas)
{
    CornerAreas areas;
    areas.legend = camera.show_legend ? shifted(legend_box(graph, camera), camera.canvas_origin) : Rect{};
    areas.minimap_shown = camera.show_minimap && !whole_drawing_shown(camera.view, bounds, canvas);
    areas.minimap_place = place_minimap(bounds, canvas, legend_box(graph, camera));
    areas.minimap = areas.minimap_shown ? shifted(areas.minimap_place.frame, camera.canvas_origin) : Rect{};
    return areas;
}

// What the drawing steps of one frame share.
struct Frame {
    const Layout& layout;
    const trace::TraceGraph& graph;
    ImDrawList* draw;
    Transform to_screen;
    Canvas canvas;
    ImFont* font;  // the graph's
    bool hovered;  // the mouse is over the canvas
    float zoom() const { return to_screen.zoom; }
};

// What is under the mouse (indices; -1: nothing).
struct Hover {
    int node = -1, edge = -1;
    int title = -1, frame = -1;  // of a module's frame (clusters): its title (a click folds it), its inside (C folds it)
};

// Clusters: forward and backward, and the frame of each unfolded module with its title (where a
// click folds it), the inner ones last.
void draw_clusters(const Frame& f, const CornerAreas& corners, Hover& hover)
{
    for (std::size_t i = 0; i < f.layout.clusters.size(); ++i) {
        const ClusterBox& cluster = f.layout.clusters[i];
        const ImVec2 a = f.to_screen(cluster.min), b = f.to_screen(cluster.max);
        if (f.hovered && !cluster.module.empty() && ImGui::IsMouseHoveringRect(a, b)) hover.frame = int(i);  // the innermost wins
        if (cluster.module.empty()) {
            f.draw->AddRect(a, b, IM_COL32(110, 110, 120, 255), 6, 0, 1.0f);
            f.draw->AddText(f.font, std::max(12.0f, 14.0f * f.zoom()),
                            pass_title_at(cluster, a, b, f.zoom(), f.font, f.canvas.min, {corners.legend, corners.minimap}),
                            IM_COL32(170, 170, 180, 255), cluster.label.c_str());
            continue;
        }
        f.draw->AddRect(a, b, IM_COL32(85, 85, 100, 255), 4, 0, 1.0f);
        ImVec2 title_min, title_max;
        float size = 0;
        if (!module_title(cluster, a, f.zoom(), f.font, title_min, title_max, size)) continue;
        const bool over = f.hovered && ImGui::IsMouseHoveringRect(title_min, title_max);
        if (over) hover.title = int(i);
        f.draw->AddText(size < 15.0f ? ImGui::GetFont() : f.font, size, title_min, over ? IM_COL32(255, 255, 255, 255) : IM_COL32(160, 160, 175, 255),
                        cluster.label.c_str());
    }
}

// The edges on the canvas (drawn before the nodes, so nodes sit on top of their ends), and the
// one nearest the mouse within 6 pixels.
void draw_edges(const Frame& f, const Stepper& stepper, Hover& hover)
{
    float hovered_distance = 6.0f;
    for (std::size_t i = 0; i < f.graph.edges.size(); ++i) {
        const bool shown = stepper.edge_shown(int(i));
        const trace::TensorInfo& t = f.graph.edges[i].tensor;
        if (!overlaps(curve_box(f.layout.edges[i], f.to_screen), f.canvas.box())) continue;  // off the canvas
        draw_edge(f.draw, f.layout.edges[i], f.to_screen, dtype_fill(t.dtype, shown ? 230 : 35), std::max(1.0f, 1.5f * f.zoom()));
        if (f.hovered) {
            const float d = edge_distance(f.layout.edges[i], f.to_screen, ImGui::GetIO().MousePos);
            if (d < hovered_distance) {
                hovered_distance = d;
                hover.edge = int(i);
            }
        }
    }
}

// The nodes on the canvas, and the one under the mouse; kept in camera.drawn when asked.
void draw_nodes(const Frame& f, const Stepper& stepper, GraphCamera& camera, Hover& hover)
{
    const FaceStyle style = face_style();
    if (camera.record_drawn) camera.drawn = {};
    for (std::size_t i = 0; i < f.graph.nodes.size(); ++i) {
        const Rect box = screen_box(f.layout.nodes[i], f.to_screen);
        if (!overlaps(box, f.canvas.box())) continue;  // off the canvas: nothing to draw
        const NodeFace face = node_face(f.graph.nodes[i].kind, box, f.zoom(), style);
        const bool shown = stepper.node_shown(int(i));
        draw_node(f.draw, f.font, f.graph.nodes[i], box, face, shown, f.zoom(), style);
        if (f.hovered && ImGui::IsMouseHoveringRect(im(box.min), im(box.max))) hover.node = int(i);
        if (camera.record_drawn && contains(f.canvas.box(), box))
            camera.drawn.nodes.push_back({int(i), box, face, node_fill(f.graph.nodes[i], shown)});
    }
}

// E unfolds the folded box under the mouse, or every module; C folds the innermost frame under
// the mouse, or the model's layers.
void read_module_keys(const Frame& f, const Document& document, const CanvasInput& input, const Hover& hover, ModuleRequest& request)
{
    if (input.unfold_key) {
        const trace::GraphNode* node = hover.node >= 0 ? &f.graph.nodes[std::size_t(hover.node)] : nullptr;
        request = node && node->kind == trace::NodeKind::module ? ModuleRequest{ModuleRequest::Kind::expand, node->module, {}, node->phase}
                                                                : ModuleRequest{ModuleRequest::Kind::set, "", {}};
    }
    if (input.fold_key)
        request = hover.frame >= 0 ? ModuleRequest{ModuleRequest::Kind::collapse, f.layout.clusters[std::size_t(hover.frame)].module}
                                   : ModuleRequest{ModuleRequest::Kind::set, "", folded_modules(document)};
}

// The timeline's current event and the inspected node, ringed.
void ring_current_and_selected(const Frame& f, const Document& document)
{
    auto ring = [&](int node, const char* color, float grow, float width) {
        if (node < 0) return;
        const Rect r = screen_box(f.layout.nodes[std::size_t(node)], f.to_screen);
        f.draw->AddRect({r.min.x - grow, r.min.y - grow}, {r.max.x + grow, r.max.y + grow}, hex_color(color), 8, 0, width);
    };
    ring(document.stepper().current_node(), colors::kCurrent, 4, 2.5f);
    if (document.selected() >= 0) ring(document.selected(), colors::kSelected, 8, 2.0f);
}

// The legend (a click on its header folds or opens it) and the minimap, over the canvas' corner;
// whether the legend's header was clicked.
bool draw_corner_overlays(const Frame& f, GraphCamera& camera, const CornerAreas& corners)
{
    bool legend_clicked = false;
    if (camera.show_legend) {
        const Rect header = draw_legend(f.draw, im(corners.legend.min), f.graph, camera.legend_folded);
        note_rect("dtypes", im(header.min), im(header.max));
        if (f.hovered && ImGui::IsMouseClicked(ImGuiMouseButton_Left) && ImGui::IsMouseHoveringRect(im(header.min), im(header.max))) {
            camera.legend_folded = !camera.legend_folded;  // the next frame draws it folded (or open)
            legend_clicked = true;
        }
        if (camera.record_drawn) camera.drawn.legend = corners.legend;
    }
    if (corners.minimap_shown) {
        draw_minimap(f.draw, f.layout, f.graph, camera.view, f.canvas.min, f.canvas.size, corners.minimap_place, camera.minimap_dragging);
        if (camera.record_drawn) camera.drawn.minimap = corners.minimap;
    }
    return legend_clicked;
}

// A node's tooltip: its label, then its explanation.
void node_tooltip(const trace::GraphNode& node)
{
    ImGui::BeginTooltip();
    for (const std::string& line : node.label) ImGui::TextUnformatted(line.c_str());
    if (!node.tooltip.empty()) {
        ImGui::Separator();
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 28);
        ImGui::TextUnformatted(node.tooltip.c_str());
        ImGui::PopTextWrapPos();
    }
    ImGui::EndTooltip();
}

// The tooltip of what is under the mouse, and what a click there does: a node is inspected (a
// folded module unfolds), a module's title folds it, the empty canvas ends the inspection.
void answer_hover(const Frame& f, Document& document, const GraphCamera& camera, const Hover& hover, bool legend_clicked, ModuleRequest& request)
{
    const bool click = ImGui::IsMouseClicked(ImGuiMouseButton_Left);
    const bool free_click = !camera.minimap_dragging && !legend_clicked;  // not taken by the minimap or the legend
    if (hover.node >= 0) {
        const trace::GraphNode& node = f.graph.nodes[std::size_t(hover.node)];
        node_tooltip(node);
        if (click && free_click) {
            if (node.kind == trace::NodeKind::module)  // a folded module: unfold it
                request = {ModuleRequest::Kind::expand, node.module, {}, node.phase};
            else
                document.select(hover.node);
        }
    } else if (hover.title >= 0) {
        const ClusterBox& cluster = f.layout.clusters[std::size_t(hover.title)];
        ImGui::SetTooltip("module %s: click to fold it into one box", cluster.label.c_str());
        if (click && free_click) request = {ModuleRequest::Kind::collapse, cluster.module, {}};
    } else if (hover.edge >= 0) {
        const trace::GraphEdge& edge = f.graph.edges[std::size_t(hover.edge)];
        ImGui::BeginTooltip();
        ImGui::TextUnformatted(tensor_line(edge.tensor).c_str());
        ImGui::TextDisabled("%s -> %s (input %d)", f.graph.nodes[std::size_t(edge.from)].label.front().c_str(),
                            f.graph.nodes[std::size_t(edge.to)].label.front().c_str(), edge.slot);
        ImGui::EndTooltip();
    } else if (f.hovered && free_click && click) {
        document.select(-1);  // a click on empty canvas: the inspector follows the timeline again
    }
}

}  // namespace

void draw_graph_view(Document& document, GraphCamera& camera, ImFont* graph_font)
{
    draw_toolbar(camera);
    ModuleRequest module_request;
    draw_module_buttons(document, module_request);
    const Canvas canvas = place_canvas(camera);
    const Rect bounds = drawing_bounds(document.layout());  // once a frame: the fit, the minimap and whether to show it use it
    aim_view(camera, document, bounds, canvas.size);
    const CanvasInput input = read_canvas_input(camera, canvas, !document.graph().modules.empty());

    const Transform to_screen{{canvas.min.x + camera.view.offset.x, canvas.min.y + camera.view.offset.y}, camera.view.zoom};
    const Frame frame{document.layout(), document.graph(), ImGui::GetWindowDrawList(), to_screen, canvas, graph_font, input.hovered};
    frame.draw->PushClipRect(canvas.min, canvas.max, true);
    // No fill: the platform clears the canvas to colors::kCanvas before ImGui draws (VizApp::backdrop).
    const CornerAreas corners = corner_areas(frame.graph, camera, bounds, canvas.size);
    Hover hover;
    draw_clusters(frame, corners, hover);
    draw_edges(frame, document.stepper(), hover);
    draw_nodes(frame, document.stepper(), camera, hover);
    read_module_keys(frame, document, input, hover, module_request);
    ring_current_and_selected(frame, document);
    const bool legend_clicked = draw_corner_overlays(frame, camera, corners);
    frame.draw->PopClipRect();

    answer_hover(frame, document, camera, hover, legend_clicked, module_request);
    apply_module_request(document, camera, module_request, canvas.size);
}

}  // namespace tinyamp::viz
