#include "visualizer/model/node_face.h"

#include <algorithm>
#include <cmath>

namespace tinyamp::viz {
namespace {

Rect shrink(const Rect& r, float by) { return {{r.min.x + by, r.min.y + by}, {r.max.x - by, r.max.y - by}}; }

}  // namespace

NodeFace node_face(trace::NodeKind kind, const Rect& box, float zoom, const FaceStyle& style)
{
    NodeFace face;
    Rect fill = box;
    switch (kind) {
    case trace::NodeKind::op:  // a rounded box: its corners cut about 0.3 of the radius in
        face.outline = std::max(1.0f, 1.2f * zoom);
        face.rounding = 6.0f * zoom;
        fill = shrink(box, 0.3f * face.rounding);
        break;
    case trace::NodeKind::cast:  // DOT's "cds" tag: the pointed end is half the height long
        face.outline = std::max(3.0f, 3.0f * zoom);
        fill.max.x -= box.height() / 2;
        break;
    case trace::NodeKind::module:  // DOT's box3d: the box is its front face (the depth is drawn outside, up and right)
        face.outline = std::max(1.5f, 2.0f * zoom);
        break;
    case trace::NodeKind::collective: {  // DOT's hexagon, its points at mid-height and its flat sides W/4 in:
        // 0.3 of the height above and below the middle it is 0.35 of the width to either side
        face.outline = std::max(1.5f, 2.0f * zoom);
        const Vec2 c{(box.min.x + box.max.x) / 2, (box.min.y + box.max.y) / 2};
        fill = {{c.x - 0.35f * box.width(), c.y - 0.3f * box.height()}, {c.x + 0.35f * box.width(), c.y + 0.3f * box.height()}};
        break;
    }
    case trace::NodeKind::tensor: {  // an ellipse (a parameter's with a thick ring): its inscribed rectangle
        face.outline = std::max(3.0f, 3.0f * zoom);
        const float half_w = box.width() / 2 / std::sqrt(2.0f), half_h = box.height() / 2 / std::sqrt(2.0f);
        const Vec2 c{(box.min.x + box.max.x) / 2, (box.min.y + box.max.y) / 2};
        fill = {{c.x - half_w, c.y - half_h}, {c.x + half_w, c.y + half_h}};
        break;
    }
    }
    // Half the outline lies inside the border; one pixel more keeps text off its anti-aliasing.
    face.inner = shrink(fill, face.outline / 2 + 1);
    const float side = style.glyph * std::max(1.0f, zoom), pad = side / 4;
    const float middle = (face.inner.min.y + face.inner.max.y) / 2;
    face.glyph = {{face.inner.min.x + pad, middle - side / 2}, {face.inner.min.x + pad + side, middle + side / 2}};
    face.label = {{face.glyph.max.x + pad, face.inner.min.y}, face.inner.max};
    return face;
}

LabelPlan plan_label(Vec2 area, const std::vector<float>& widths, float wanted, float smallest)
{
    if (widths.empty() || area.x <= 0 || area.y <= 0) return {};
    const float target = std::max(wanted, smallest);
    // The largest size up to `target` at which `count` lines as wide as `widest` fit the area.
    auto fitting = [&](std::size_t count, float widest) {
        const float height = 1 + kLineSpacing * float(count - 1);
        return std::min({target, widest > 0 ? area.x / widest : target, area.y / height});
    };
    const float widest = *std::max_element(widths.begin(), widths.end());
    if (const float all = fitting(widths.size(), widest); all >= smallest) return {int(widths.size()), all};
    if (const float first = fitting(1, widths.front()); first >= smallest) return {1, first};
    return {};
}

float readable_zoom(const Layout& layout, const trace::TraceGraph& graph, const MeasureText& measure, const FaceStyle& style)
{
    std::vector<float> first_widths;
    for (const trace::GraphNode& node : graph.nodes) first_widths.push_back(node.label.empty() ? 0.0f : measure(node.label.front()));
    auto readable = [&](float zoom) {
        for (std::size_t i = 0; i < graph.nodes.size() && i < layout.nodes.size(); ++i) {
            if (graph.nodes[i].label.empty()) continue;
            const NodeBox& n = layout.nodes[i];
            const Rect box{{0, 0}, {n.size.x * zoom, n.size.y * zoom}};
            const Rect area = node_face(graph.nodes[i].kind, box, zoom, style).label;
            if (plan_label({area.width(), area.height()}, {first_widths[i]}, style.label_points * zoom, style.smallest_text).lines < 1)
                return false;
        }
        return true;
    };
    if (readable(kMinZoom)) return kMinZoom;
    if (!readable(kMaxZoom)) return kMaxZoom;
    // The label area grows with the zoom faster than the outlines eat into it: bisect.
    float lo = kMinZoom, hi = kMaxZoom;
    for (int i = 0; i < 40 && hi - lo > 1e-4f; ++i) {
        const float mid = (lo + hi) / 2;
        (readable(mid) ? hi : lo) = mid;
    }
    return hi;
}

}  // namespace tinyamp::viz
