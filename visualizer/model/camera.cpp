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
