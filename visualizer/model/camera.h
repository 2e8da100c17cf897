#pragma once
// Where the graph view looks: the zoom and pan that map the layout (Graphviz points) to the
// canvas (pixels from its top-left), and the moves a person makes with it: fit the whole graph,
// zoom about the cursor, keep the timeline's node in sight, jump to a point picked on the minimap.
// No GUI here, so the tests check every move directly (tests/visualizer/camera_test.cpp).
#include <optional>
#include <vector>

#include "visualizer/model/layout.h"

namespace tinyamp::viz {

/// An axis-aligned box: in layout points, or in canvas pixels, as each function says.
struct Rect {
    Vec2 min;
    Vec2 max;
    float width() const { return max.x - min.x; }
    float height() const { return max.y - min.y; }
};

/// canvas = offset + layout * zoom.
struct Camera {
    Vec2 offset;       ///< canvas pixels from the canvas' top-left to the layout's origin
    float zoom = 1.0f; ///< canvas pixels per layout point

    Vec2 to_canvas(Vec2 p) const { return {offset.x + p.x * zoom, offset.y + p.y * zoom}; }
    Vec2 to_layout(Vec2 c) const { return {(c.x - offset.x) / zoom, (c.y - offset.y) / zoom}; }
};

inline constexpr float kMinZoom = 0.03f;     ///< the wheel stops here (the deep scenarios fit at about 0.1)
inline constexpr float kMaxZoom = 4.0f;      ///< and here
inline constexpr float kMaxFitZoom = 1.5f;   ///< a small graph is not blown up past this when fitted

/// What is drawn: every node box and the forward/backward cluster boxes, in layout points.
Rect drawing_bounds(const Layout& layout);
/// `box` of a node, in layout points.
Rect node_bounds(const NodeBox& box);

/// The camera that shows all of `bounds` in `canvas` (pixels), centred, with `margin` pixels
/// around it, and none of it under `keep_clear` (the size of a box in the canvas' top-left
/// corner, such as the legend; {0, 0} for none): the drawing goes to the right of that box or
/// below it, whichever allows the larger zoom. The zoom is kept within [kMinZoom, kMaxFitZoom].
Camera fit(const Rect& bounds, Vec2 canvas, Vec2 keep_clear, float margin = 24);
/// The first view, and the one F gives: fit(bounds, canvas, keep_clear), unless its zoom is below
/// `readable` (node_face.h's readable_zoom: below it some labels are left out). Then the drawing
/// is shown at `readable`, its top-left corner `margin` pixels into the region right of
/// `keep_clear_larger` or below it (whichever shows more of the drawing), centred along an axis
/// where it fits. `keep_clear_larger` is the corner box for a drawing larger than the canvas:
/// the legend and the minimap under it.
Camera first_view(const Rect& bounds, Vec2 canvas, Vec2 keep_clear, float readable, Vec2 keep_clear_larger, float margin = 24);
/// What is drawn over the canvas' top-left corner, in canvas pixels: the legend, and under it the
/// minimap, shown while part of the drawing is out of view. An empty box ({0, 0} to {0, 0}) for
/// one that is hidden.
struct CornerOverlays {
    Rect legend;
    Rect minimap;
};
/// The first view with the node `focus` (an index into layout.nodes; -1 for none) in it: the fit
/// when it is readable (as first_view(): the whole drawing, so the focus too). Else, at the
/// readable zoom, the best of a set of placements (down: the drawing's top at the margin, below
/// the legend or below the minimap, and the focus at 13 heights; across: the nodes of the rows
/// in view centred, the drawing's left or right edge at the margin or beside the overlays, and
/// the focus at 13 places) among those with the focus wholly in the canvas and no node in the
/// canvas under the legend or the minimap (under the minimap only while it is shown). The best
/// shows the most nodes wholly, less two for each node of its rows cut or left out at the sides
/// (a column not in view); the first one listed on a tie. But a band left empty above the
/// drawing (its top below the margin) is worth it only for whole rows: a placement that leaves
/// one and still cuts or leaves out a node of its rows at the sides ranks after every other,
/// whatever the scores (so a drawing too wide for the canvas starts at the top, a column beside
/// the overlays, rather than below the minimap with a column cut all the same). The focus's
/// heights are tried only when no top of the drawing qualifies.
/// None when none qualifies: a canvas too small for the focus beside the overlays (then a
/// smaller legend, or first_view() clear of the corner).
std::optional<Camera> first_view_showing(const Layout& layout, int focus, Vec2 canvas, const CornerOverlays& overlays, float readable, float margin = 24);
/// The camera zoomed by `factor` (clamped to [kMinZoom, kMaxZoom]) about the canvas point
/// `anchor`: the layout point under it stays under it, as the mouse wheel does.
Camera zoom_about(const Camera& camera, Vec2 anchor, float factor);
/// The camera panned, zoom unchanged, by the least that brings `box` (layout points) inside the
/// canvas with `margin` pixels to spare; unchanged when it is inside already. A box larger than
/// the canvas is centred instead.
Camera follow(const Camera& camera, const Rect& box, Vec2 canvas, float margin = 40);
/// The camera panned so that the layout point `p` is at the canvas' centre.
Camera center_on(const Camera& camera, Vec2 p, Vec2 canvas);
/// The part of the layout the canvas shows, in layout points.
Rect visible_region(const Camera& camera, Vec2 canvas);

/// The minimap: the whole drawing scaled into a box of at most `max_size` pixels, aspect kept.
struct Minimap {
    Vec2 size;         ///< the minimap's width and height in pixels
    float scale = 1;   ///< pixels per layout point
    Vec2 origin;       ///< the layout point at the minimap's top-left

    Vec2 to_map(Vec2 p) const { return {(p.x - origin.x) * scale, (p.y - origin.y) * scale}; }
    Vec2 to_layout(Vec2 m) const { return {origin.x + m.x / scale, origin.y + m.y / scale}; }
};
/// Whether two boxes share some area.
bool overlaps(const Rect& a, const Rect& b);
/// Whether `inner` lies wholly inside `outer` (edges may touch).
bool contains(const Rect& outer, const Rect& inner);

/// The minimap of `bounds` (layout points) that fits `max_size` pixels.
Minimap make_minimap(const Rect& bounds, Vec2 max_size);

}  // namespace tinyamp::viz
