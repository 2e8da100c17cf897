#include "visualizer/model/camera.h"

#include <algorithm>

namespace tinyamp::viz {

Rect node_bounds(const NodeBox& box)
{
    return {{box.center.x - box.size.x / 2, box.center.y - box.size.y / 2}, {box.center.x + box.size.x / 2, box.center.y + box.size.y / 2}};
}

Rect drawing_bounds(const Layout& layout)
{
    Rect r{{1e9f, 1e9f}, {-1e9f, -1e9f}};
    auto extend = [&](Vec2 a, Vec2 b) {
        r.min = {std::min(r.min.x, a.x), std::min(r.min.y, a.y)};
        r.max = {std::max(r.max.x, b.x), std::max(r.max.y, b.y)};
    };
    for (const NodeBox& n : layout.nodes) {
        const Rect box = node_bounds(n);
        extend(box.min, box.max);
    }
    for (const ClusterBox& c : layout.clusters) extend(c.min, c.max);
    if (r.min.x > r.max.x) r = {{0, 0}, {0, 0}};  // an empty graph
    return r;
}

namespace {

// Right of the corner box, or below it (a box of {0, 0} leaves the whole canvas).
struct Region {
    Vec2 min, size;
};
Region right_of(Vec2 canvas, Vec2 keep_clear) { return {{keep_clear.x, 0}, {canvas.x - keep_clear.x, canvas.y}}; }
Region below(Vec2 canvas, Vec2 keep_clear) { return {{0, keep_clear.y}, {canvas.x, canvas.y - keep_clear.y}}; }

Vec2 drawing_size(const Rect& bounds) { return {std::max(bounds.width(), 1.0f), std::max(bounds.height(), 1.0f)}; }

// Where the drawing's top-left goes along one axis: centred in the region when it fits, else `margin` in.
float place(float region_min, float region_extent, float drawing_extent, float margin)
{
    const float centred = (region_extent - drawing_extent) / 2;
    return region_min + (drawing_extent <= region_extent - 2 * margin ? centred : margin);
}

}  // namespace

Camera fit(const Rect& bounds, Vec2 canvas, Vec2 keep_clear, float margin)
{
    const Vec2 size = drawing_size(bounds);
    auto zoom_in = [&](const Region& region) {
        return std::min((region.size.x - 2 * margin) / size.x, (region.size.y - 2 * margin) / size.y);
    };
    const Region right = right_of(canvas, keep_clear), under = below(canvas, keep_clear);
    const Region& region = zoom_in(right) >= zoom_in(under) ? right : under;
    Camera camera;
    camera.zoom = std::clamp(zoom_in(region), kMinZoom, kMaxFitZoom);
    camera.offset = {region.min.x + (region.size.x - size.x * camera.zoom) / 2 - bounds.min.x * camera.zoom,
                     region.min.y + (region.size.y - size.y * camera.zoom) / 2 - bounds.min.y * camera.zoom};
    return camera;
}

Camera first_view(const Rect& bounds, Vec2 canvas, Vec2 keep_clear, float readable, Vec2 keep_clear_larger, float margin)
{
    const Camera fitted = fit(bounds, canvas, keep_clear, margin);
    if (fitted.zoom >= readable) return fitted;
    const Vec2 size = drawing_size(bounds);
    const Vec2 drawn = {size.x * readable, size.y * readable};
    auto shown_area = [&](const Region& region) {
        return std::min(drawn.x, region.size.x - 2 * margin) * std::min(drawn.y, region.size.y - 2 * margin);
    };
    const Region right = right_of(canvas, keep_clear_larger), under = below(canvas, keep_clear_larger);
    const Region& region = shown_area(right) >= shown_area(under) ? right : under;
    Camera camera;
    camera.zoom = readable;
    camera.offset = {place(region.min.x, region.size.x, drawn.x, margin) - bounds.min.x * readable,
                     place(region.min.y, region.size.y, drawn.y, margin) - bounds.min.y * readable};
    return camera;
}

namespace {

bool is_shown(const Rect& overlay) { return overlay.width() > 0 && overlay.height() > 0; }

Rect on_canvas(const Camera& camera, const Rect& box) { return {camera.to_canvas(box.min), camera.to_canvas(box.max)}; }

// What a placement of the first view shows of the nodes.
struct Showing {
    bool qualifies = false;  // the focus wholly in the canvas, no node in the canvas under an overlay
    int side_missing = 0;    // nodes of the rows in view cut by the canvas' left or right edge, or beyond it
    int whole = 0;           // nodes wholly in the canvas
};
Showing showing(const Camera& camera, const std::vector<Rect>& nodes, int focus, const Rect& drawing, Vec2 canvas, const CornerOverlays& overlays)
{
    const Rect area{{0, 0}, canvas};
    const bool minimap = is_shown(overlays.minimap) && !contains(visible_region(camera, canvas), drawing);
    if (focus >= 0 && !contains(area, on_canvas(camera, nodes[std::size_t(focus)]))) return {};
    Showing s{true, 0, 0};
    for (const Rect& node : nodes) {
        const Rect box = on_canvas(camera, node);
        if (box.max.y <= 0 || box.min.y >= canvas.y) continue;  // not in the rows in view
        s.side_missing += box.min.x < 0 || box.max.x > canvas.x;
        if (!overlaps(box, area)) continue;
        if ((is_shown(overlays.legend) && overlaps(box, overlays.legend)) || (minimap && overlaps(box, overlays.minimap))) return {};
        s.whole += contains(area, box);
    }
    return s;
}

// The x extent of the nodes that the rows from `top` to `bottom` (layout points) hold.
Rect row_nodes(const std::vector<Rect>& nodes, float top, float bottom)
{
    Rect r{{1e9f, top}, {-1e9f, bottom}};
    for (const Rect& n : nodes)
        if (n.max.y > top && n.min.y < bottom) r = {{std::min(r.min.x, n.min.x), top}, {std::max(r.max.x, n.max.x), bottom}};
    return r.min.x <= r.max.x ? r : Rect{{0, top}, {0, bottom}};  // no node in those rows
}

// Offsets that put [lo, hi] (layout points, at zoom z) at 2 * `half` + 1 places from `margin`
// to `extent` - `margin` pixels, the middle one first, then outwards: where a node may sit
// along one axis of the canvas.
std::vector<float> sweep(float lo, float hi, float z, float extent, float margin, int half)
{
    std::vector<float> offsets;
    const float room = std::max(0.0f, extent - 2 * margin - (hi - lo) * z);
    auto at = [&](int i) { return margin + room * float(i) / float(2 * half) - lo * z; };
    offsets.push_back(at(half));
    for (int d = 1; d <= half; ++d) {
        offsets.push_back(at(half - d));
        offsets.push_back(at(half + d));
    }
    return offsets;
}

constexpr int kHalfSweep = 6;  // the focus is tried at 2 * 6 + 1 places along each axis

// What the search for the first view's placement looks at, at zoom `z`.
struct Placing {
    std::vector<Rect> nodes;  // layout points
    Rect drawing;
    int focus;
    Vec2 canvas;
    CornerOverlays overlays;
    Vec2 corner;  // the corner that the legend and the minimap take together
    float z, margin;
};

// Where the layout's origin goes (Camera::offset), down: the drawing's top at the margin, below
// the legend, below the minimap (the top is where the forward pass begins, the place a student
// starts reading); then, with a focus, the focus centred, then higher and lower.
constexpr std::size_t kDrawingTops = 3;
std::vector<float> tops(const Placing& p)
{
    const float top = p.drawing.min.y * p.z;
    std::vector<float> tops = {p.margin - top, p.overlays.legend.max.y + p.margin - top, p.corner.y + p.margin - top};
    if (p.focus >= 0) {
        const Rect& f = p.nodes[std::size_t(p.focus)];
        for (const float at : sweep(f.min.y, f.max.y, p.z, p.canvas.y, p.margin, kHalfSweep)) tops.push_back(at);
    }
    return tops;
}

// Across, for a view whose top is at `top`: the nodes of the rows it shows, centred (a tall
// drawing's columns are often narrower where the view is than further down); the drawing's left
// at the margin, right of the legend, right of the minimap; its right at the margin; then the
// focus centred, then further left and right.
std::vector<float> lefts(const Placing& p, float top)
{
    const Rect rows = row_nodes(p.nodes, -top / p.z, (p.canvas.y - top) / p.z);
    const float z = p.z, left = p.drawing.min.x * z;
    std::vector<float> lefts = {(p.canvas.x - rows.width() * z) / 2 - rows.min.x * z, p.margin - left, p.overlays.legend.max.x + p.margin - left,
                                p.corner.x + p.margin - left, p.canvas.x - p.margin - p.drawing.max.x * z};
    if (p.focus >= 0) {
        const Rect& f = p.nodes[std::size_t(p.focus)];
        for (const float at : sweep(f.min.x, f.max.x, z, p.canvas.x, p.margin, kHalfSweep)) lefts.push_back(at);
    }
    return lefts;
}

// Whether placement `a` ranks before `b`. The better shows the most nodes wholly, less two for
// each node of its rows cut or left out at the sides (a column not in view); the first one
// listed on a tie. That penalty counts only the rows in view, so for a drawing cut at a side the
// score alone rewards pushing it down the canvas (fewer rows, fewer nodes left out) and the band
// left empty above it costs nothing. A band is worth it only for whole rows: a placement that
// leaves one and still cuts a column ranks after every other.
bool ranks_before(const Placing& p, const Camera& a, const Showing& sa, const Camera& b, const Showing& sb)
{
    auto score = [](const Showing& s) { return s.whole - 2 * s.side_missing; };
    auto wasteful = [&](const Camera& camera, const Showing& s) {
        return s.side_missing > 0 && camera.offset.y + p.drawing.min.y * p.z > p.margin + 1;
    };
    if (wasteful(a, sa) != wasteful(b, sb)) return wasteful(b, sb);
    return score(sa) > score(sb);
}

}  // namespace

std::optional<Camera> first_view_showing(const Layout& layout, int focus, Vec2 canvas, const CornerOverlays& overlays, float readable, float margin)
{
    const Rect drawing = drawing_bounds(layout);
    const Camera fitted = fit(drawing, canvas, overlays.legend.max, margin);
    if (fitted.zoom >= readable) return fitted;
    Placing p{{}, drawing, focus, canvas, overlays, {}, readable, margin};
    for (const NodeBox& n : layout.nodes) p.nodes.push_back(node_bounds(n));
    p.corner = {std::max(overlays.legend.max.x, overlays.minimap.max.x), std::max(overlays.legend.max.y, overlays.minimap.max.y)};
    // Every top with every left, in order; the focus's heights only when no top of the drawing
    // qualified.
    const std::vector<float> downs = tops(p);
    Camera best = fitted;
    Showing best_showing;
    for (std::size_t t = 0; t < downs.size(); ++t) {
        if (t == kDrawingTops && best_showing.qualifies) break;
        for (const float left : lefts(p, downs[t])) {
            Camera camera;
            camera.zoom = p.z;
            camera.offset = {left, downs[t]};
            const Showing s = showing(camera, p.nodes, focus, drawing, canvas, overlays);
            if (s.qualifies && (!best_showing.qualifies || ranks_before(p, camera, s, best, best_showing))) {
                best = camera;
                best_showing = s;
            }
        }
    }
    if (best_showing.qualifies) return best;
    return std::nullopt;
}

Camera zoom_about(const Camera& camera, Vec2 anchor, float factor)
{
    const Vec2 under = camera.to_layout(anchor);
    Camera zoomed;
    zoomed.zoom = std::clamp(camera.zoom * factor, kMinZoom, kMaxZoom);
    zoomed.offset = {anchor.x - under.x * zoomed.zoom, anchor.y - under.y * zoomed.zoom};
    return zoomed;
}

Camera follow(const Camera& camera, const Rect& box, Vec2 canvas, float margin)
{
    const Vec2 a = camera.to_canvas(box.min), b = camera.to_canvas(box.max);
    // Along one axis: the shift that brings [lo, hi] inside [margin, extent - margin].
    auto shift = [margin](float lo, float hi, float extent) {
        if (hi - lo > extent - 2 * margin) return extent / 2 - (lo + hi) / 2;  // too big: centre it
        if (lo < margin) return margin - lo;
        if (hi > extent - margin) return extent - margin - hi;
        return 0.0f;
    };
    Camera moved = camera;
    moved.offset = {camera.offset.x + shift(a.x, b.x, canvas.x), camera.offset.y + shift(a.y, b.y, canvas.y)};
    return moved;
}

Camera center_on(const Camera& camera, Vec2 p, Vec2 canvas)
{
    Camera moved = camera;
    moved.offset = {canvas.x / 2 - p.x * camera.zoom, canvas.y / 2 - p.y * camera.zoom};
    return moved;
}

Rect visible_region(const Camera& camera, Vec2 canvas) { return {camera.to_layout({0, 0}), camera.to_layout(canvas)}; }

bool overlaps(const Rect& a, const Rect& b) { return a.min.x < b.max.x && b.min.x < a.max.x && a.min.y < b.max.y && b.min.y < a.max.y; }

bool contains(const Rect& outer, const Rect& inner)
{
    return inner.min.x >= outer.min.x && inner.min.y >= outer.min.y && inner.max.x <= outer.max.x && inner.max.y <= outer.max.y;
}

Minimap make_minimap(const Rect& bounds, Vec2 max_size)
{
    const Vec2 size = {std::max(bounds.width(), 1.0f), std::max(bounds.height(), 1.0f)};
    Minimap map;
    map.scale = std::min(max_size.x / size.x, max_size.y / size.y);
    map.size = {size.x * map.scale, size.y * map.scale};
    map.origin = bounds.min;
    return map;
}

}  // namespace tinyamp::viz
