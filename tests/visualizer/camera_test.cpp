// The graph view's camera, moved as a person moves it: fit (leaving the legend's corner free),
// the wheel's zoom about the cursor, following the timeline's node, the minimap's jump. The
// numbers are worked out by hand from the mapping canvas = offset + layout * zoom.
#include <doctest/doctest.h>

#include <algorithm>
#include <optional>

#include "tests/support/recorded_traces.h"
#include "visualizer/model/camera.h"

using namespace tinyamp;
using viz::Camera;
using viz::Rect;
using viz::Vec2;

namespace {

bool inside(const Rect& inner, const Rect& outer)
{
    return inner.min.x >= outer.min.x - 1e-3f && inner.min.y >= outer.min.y - 1e-3f && inner.max.x <= outer.max.x + 1e-3f &&
           inner.max.y <= outer.max.y + 1e-3f;
}

Rect on_canvas(const Camera& camera, const Rect& layout_box) { return {camera.to_canvas(layout_box.min), camera.to_canvas(layout_box.max)}; }

}  // namespace

TEST_CASE("fit: a tall drawing goes beside the legend's corner, centred, with the margin, never under the corner")
{
    const Rect drawing{{0, 0}, {100, 1000}};
    const Vec2 canvas{800, 600}, legend{200, 150};
    const Camera camera = viz::fit(drawing, canvas, legend, 20);
    // Beside it: height 600 - 40 for 1000 points; below it: 450 - 40. Beside wins.
    CHECK(camera.zoom == doctest::Approx(0.56));
    const Rect shown = on_canvas(camera, drawing);
    CHECK(shown.min.y == doctest::Approx(20));
    CHECK(shown.max.y == doctest::Approx(580));
    CHECK(shown.min.x >= 200);  // right of the legend
    CHECK((shown.min.x + shown.max.x) / 2 == doctest::Approx(500));  // centred in the free 600 px
}

TEST_CASE("fit: a wide drawing goes below the corner box, and a tiny one is not blown up past kMaxFitZoom")
{
    const Camera wide = viz::fit({{0, 0}, {1000, 100}}, {800, 600}, {200, 150}, 20);
    CHECK(wide.zoom == doctest::Approx(0.76));  // below: (800 - 40) / 1000; beside only 0.56
    CHECK(on_canvas(wide, {{0, 0}, {1000, 100}}).min.y >= 150);
    const Camera tiny = viz::fit({{0, 0}, {10, 10}}, {800, 600}, {0, 0});
    CHECK(tiny.zoom == viz::kMaxFitZoom);
    CHECK(on_canvas(tiny, {{0, 0}, {10, 10}}).min.x == doctest::Approx(400 - 7.5));
}

TEST_CASE("zoom_about keeps the layout point under the cursor where it was, and stops at the limits")
{
    Camera camera;
    camera.offset = {30, -50};
    camera.zoom = 0.5f;
    const Vec2 cursor{412, 233};
    const Vec2 under = camera.to_layout(cursor);
    const Camera zoomed = viz::zoom_about(camera, cursor, 1.15f);
    CHECK(zoomed.zoom == doctest::Approx(0.575));
    CHECK(zoomed.to_canvas(under).x == doctest::Approx(cursor.x));
    CHECK(zoomed.to_canvas(under).y == doctest::Approx(cursor.y));
    CHECK(viz::zoom_about(camera, cursor, 1000).zoom == viz::kMaxZoom);
    CHECK(viz::zoom_about(camera, cursor, 1e-6f).zoom == viz::kMinZoom);
}

TEST_CASE("follow pans the least that brings the node into view, and leaves a visible node alone")
{
    Camera camera;  // zoom 1, offset 0: layout = canvas
    const Vec2 canvas{800, 600};
    const Rect visible{{100, 100}, {200, 150}};
    CHECK(viz::follow(camera, visible, canvas, 40).offset.x == 0);
    CHECK(viz::follow(camera, visible, canvas, 40).offset.y == 0);
    const Camera moved = viz::follow(camera, {{100, 900}, {200, 950}}, canvas, 40);  // below the canvas
    CHECK(moved.offset.x == 0);
    CHECK(moved.offset.y == doctest::Approx(600 - 40 - 950));  // its bottom lands 40 px above the edge
    CHECK(inside(on_canvas(moved, {{100, 900}, {200, 950}}), {{40, 40}, {760, 560}}));
    const Camera left = viz::follow(camera, {{-300, 10}, {-250, 60}}, canvas, 40);
    CHECK(left.offset.x == doctest::Approx(340));
    const Camera huge = viz::follow(camera, {{0, 0}, {2000, 100}}, canvas, 40);  // wider than the canvas: centred
    CHECK(huge.offset.x == doctest::Approx(400 - 1000));
}

TEST_CASE("the minimap keeps the drawing's aspect, and a click on it centres the view there")
{
    const Rect drawing{{-50, 0}, {150, 1000}};
    const viz::Minimap map = viz::make_minimap(drawing, {160, 160});
    CHECK(map.scale == doctest::Approx(0.16));
    CHECK(map.size.x == doctest::Approx(32));
    CHECK(map.size.y == doctest::Approx(160));
    CHECK(map.to_map({-50, 0}).x == doctest::Approx(0));
    const Vec2 picked = map.to_layout({16, 80});  // the middle of the minimap
    CHECK(picked.x == doctest::Approx(50));
    CHECK(picked.y == doctest::Approx(500));
    Camera camera;
    camera.zoom = 2;
    const Camera centred = viz::center_on(camera, picked, {800, 600});
    CHECK(centred.to_canvas(picked).x == doctest::Approx(400));
    CHECK(centred.to_canvas(picked).y == doctest::Approx(300));
    const Rect seen = viz::visible_region(centred, {800, 600});
    CHECK(seen.width() == doctest::Approx(400));
    CHECK(seen.height() == doctest::Approx(300));
}

TEST_CASE("drawing_bounds of a real layout holds every node box")
{
    const test::LinearBf16Step step;
    const viz::Layout layout = viz::layout_graph(step.graph, step.trace.to_dot());
    const Rect bounds = viz::drawing_bounds(layout);
    REQUIRE_FALSE(layout.nodes.empty());
    for (const viz::NodeBox& box : layout.nodes) CHECK(inside(viz::node_bounds(box), bounds));
    CHECK(viz::drawing_bounds(viz::Layout{}).width() == 0);
}

TEST_CASE("first_view: the fit when it is readable, else the readable zoom, the drawing's top-left clear of the corner overlays")
{
    const Rect drawing{{10, 20}, {2010, 3020}};  // 2000 x 3000 points: fits 800x600 at about 0.19
    const Vec2 canvas{800, 600}, legend{200, 150}, overlays{200, 350};
    const Camera fitted = viz::fit(drawing, canvas, legend, 20);
    const Camera readable_fit = viz::first_view(drawing, canvas, legend, fitted.zoom * 0.5f, overlays, 20);
    CHECK(readable_fit.zoom == doctest::Approx(fitted.zoom));
    CHECK(readable_fit.offset.x == doctest::Approx(fitted.offset.x));

    const Camera close = viz::first_view(drawing, canvas, legend, 0.5f, overlays, 20);
    CHECK(close.zoom == doctest::Approx(0.5));
    const Rect shown = on_canvas(close, drawing);
    // Right of the overlays (that shows 560 x 560 pixels of its 1000 x 1500; below them only 760 x 210).
    CHECK(shown.min.x == doctest::Approx(200 + 20));
    CHECK(shown.min.y == doctest::Approx(20));
    CHECK(shown.width() > canvas.x);  // larger than the canvas: part of it is out of view

    // A drawing narrow enough at the readable zoom is centred across the free region instead.
    const Rect column{{0, 0}, {100, 3000}};
    const Camera narrow = viz::first_view(column, canvas, legend, 1.0f, overlays, 20);
    const Rect placed = on_canvas(narrow, column);
    CHECK((placed.min.x + placed.max.x) / 2 == doctest::Approx(500));  // the middle of 200..800
    CHECK(placed.min.y == doctest::Approx(20));
}

namespace {

// A made-up layout of two columns of boxes, 100 x 40 points, one every 80 points down: the
// forward pass at x 0..100, the backward pass at x 300..400 (a drawing 400 points wide).
viz::Layout two_columns(int rows)
{
    viz::Layout layout;
    for (int i = 0; i < rows; ++i)
        for (const float x : {50.0f, 350.0f}) layout.nodes.push_back({{x, 20.0f + 80.0f * float(i)}, {100, 40}});
    return layout;
}

// Whether any node of `layout` that `camera` draws in the canvas lies under `box` (canvas pixels).
bool node_under(const Camera& camera, const viz::Layout& layout, Vec2 canvas, const Rect& box)
{
    for (const viz::NodeBox& n : layout.nodes) {
        const Rect shown = on_canvas(camera, viz::node_bounds(n));
        if (viz::overlaps(shown, {{0, 0}, canvas}) && viz::overlaps(shown, box)) return true;
    }
    return false;
}

}  // namespace

TEST_CASE("first_view_showing: the fit when it is readable, the focus and all")
{
    const viz::Layout layout = two_columns(3);
    const Vec2 canvas{800, 600};
    const viz::CornerOverlays overlays{{{0, 0}, {150, 100}}, {}};
    const std::optional<Camera> view = viz::first_view_showing(layout, 5, canvas, overlays, 0.5f);
    REQUIRE(view);
    const Camera fitted = viz::fit(viz::drawing_bounds(layout), canvas, overlays.legend.max);
    CHECK(view->zoom == doctest::Approx(fitted.zoom));
    CHECK(view->offset.x == doctest::Approx(fitted.offset.x));
}

TEST_CASE("first_view_showing: both columns across, at the readable zoom, the first row below the legend rather than under it")
{
    // 400 points across at zoom 1 in a canvas 520 wide: both columns fit across, but not beside a
    // legend 200 wide; the drawing (40 rows) is far too tall to fit at a readable zoom.
    const viz::Layout layout = two_columns(40);
    const Vec2 canvas{520, 600};
    const viz::CornerOverlays overlays{{{8, 8}, {200, 150}}, {{8, 158}, {40, 400}}};
    const std::optional<Camera> view = viz::first_view_showing(layout, 0, canvas, overlays, 1.0f);
    REQUIRE(view);
    CHECK(view->zoom == doctest::Approx(1.0));
    int forward = 0, backward = 0;
    for (std::size_t i = 0; i < layout.nodes.size(); ++i) {
        const Rect shown = on_canvas(*view, viz::node_bounds(layout.nodes[i]));
        if (shown.max.y <= 0 || shown.min.y >= canvas.y) continue;  // not in the rows in view
        CHECK(shown.min.x >= 0);  // no column cut at the sides
        CHECK(shown.max.x <= canvas.x);
        (i % 2 == 0 ? forward : backward) += inside(shown, {{0, 0}, canvas});
    }
    CHECK(forward >= 4);
    CHECK(backward >= 4);
    CHECK(on_canvas(*view, viz::node_bounds(layout.nodes[0])).min.y >= 150);  // the first row, the focus, below the legend
    CHECK_FALSE(node_under(*view, layout, canvas, overlays.legend));
    CHECK_FALSE(node_under(*view, layout, canvas, overlays.minimap));
}

TEST_CASE("first_view_showing: a focus far down is shown, and a canvas without room for it beside the overlays gives none")
{
    // The legend folded to its header, a narrow minimap under it.
    const viz::Layout layout = two_columns(40);
    const Vec2 canvas{520, 600};
    const viz::CornerOverlays overlays{{{8, 8}, {100, 36}}, {{8, 44}, {40, 300}}};
    const int deep = 2 * 30 + 1;  // the backward column's 31st box, 2400 points down
    const std::optional<Camera> view = viz::first_view_showing(layout, deep, canvas, overlays, 1.0f);
    REQUIRE(view);
    CHECK(inside(on_canvas(*view, viz::node_bounds(layout.nodes[deep])), {{0, 0}, canvas}));
    CHECK_FALSE(node_under(*view, layout, canvas, overlays.legend));
    CHECK_FALSE(node_under(*view, layout, canvas, overlays.minimap));
    // A legend over all of the canvas leaves no first view that shows a node clear of it.
    CHECK_FALSE(viz::first_view_showing(layout, deep, canvas, {{{0, 0}, canvas}, {}}, 1.0f));
}

TEST_CASE("first_view_showing: a column beside the legend from the top, not an empty band above the drawing while it runs off the bottom")
{
    // 400 points across in a canvas 350 wide: the two columns never fit side by side, so every
    // placement cuts one. The backward column (the focus's) fits beside the legend and the
    // minimap from the canvas' top. Pushed below the minimap it shows 3 boxes instead of 7, yet
    // leaves fewer boxes of the forward column out at the side (only those of the rows in view).
    const viz::Layout layout = two_columns(40);
    const Vec2 canvas{350, 600};
    const viz::CornerOverlays overlays{{{8, 8}, {150, 100}}, {{8, 108}, {120, 300}}};
    const std::optional<Camera> view = viz::first_view_showing(layout, 1, canvas, overlays, 1.0f);
    REQUIRE(view);
    CHECK(inside(on_canvas(*view, viz::node_bounds(layout.nodes[1])), {{0, 0}, canvas}));
    CHECK_FALSE(node_under(*view, layout, canvas, overlays.legend));
    CHECK_FALSE(node_under(*view, layout, canvas, overlays.minimap));
    float top = canvas.y;  // the highest node in the canvas
    int whole = 0;
    for (const viz::NodeBox& n : layout.nodes) {
        const Rect shown = on_canvas(*view, viz::node_bounds(n));
        if (!viz::overlaps(shown, {{0, 0}, canvas})) continue;
        top = std::min(top, shown.min.y);
        whole += inside(shown, {{0, 0}, canvas});
    }
    CHECK(top <= 24 + 1);  // no band above the drawing (the old rule left 324 px)
    CHECK(whole >= 7);
}

TEST_CASE("overlaps: boxes that share area, not ones that only touch")
{
    CHECK(viz::overlaps({{0, 0}, {10, 10}}, {{5, 5}, {20, 20}}));
    CHECK_FALSE(viz::overlaps({{0, 0}, {10, 10}}, {{10, 0}, {20, 10}}));
    CHECK_FALSE(viz::overlaps({{0, 0}, {10, 10}}, {{0, 11}, {10, 20}}));
}

TEST_CASE("contains: a box wholly inside another, edges touching allowed")
{
    CHECK(viz::contains({{0, 0}, {10, 10}}, {{2, 2}, {8, 8}}));
    CHECK(viz::contains({{0, 0}, {10, 10}}, {{0, 0}, {10, 10}}));
    CHECK_FALSE(viz::contains({{0, 0}, {10, 10}}, {{5, 5}, {11, 8}}));
    CHECK_FALSE(viz::contains({{2, 2}, {8, 8}}, {{0, 0}, {10, 10}}));
}
