// Where a node's glyph and label go, how large the label is written, and the readable zoom. The
// font is made up (every character 0.6 of the size wide), so the numbers can be worked by hand.
#include <doctest/doctest.h>

#include <algorithm>

#include "tests/support/recorded_traces.h"
#include "visualizer/model/node_face.h"

using namespace tinyamp;
using viz::LabelPlan;
using viz::Rect;

namespace {

float made_up_width(const std::string& line) { return 0.6f * float(line.size()); }

bool inside(const Rect& inner, const Rect& outer)
{
    return inner.min.x >= outer.min.x && inner.min.y >= outer.min.y && inner.max.x <= outer.max.x && inner.max.y <= outer.max.y;
}

}  // namespace

TEST_CASE("plan_label: all lines at the wanted size when they fit, else smaller, else the first line alone, else nothing")
{
    const std::vector<float> widths = {3.0f, 6.0f};  // the second line is twice as wide
    const LabelPlan roomy = viz::plan_label({200, 100}, widths, 11, 9.5f);
    CHECK(roomy.lines == 2);
    CHECK(roomy.size == doctest::Approx(11));
    const LabelPlan narrower = viz::plan_label({60, 100}, widths, 11, 9.5f);  // 6 * s <= 60: s = 10
    CHECK(narrower.lines == 2);
    CHECK(narrower.size == doctest::Approx(10));
    const LabelPlan first = viz::plan_label({40, 100}, widths, 11, 9.5f);  // both need s <= 6.7; the first alone 11
    CHECK(first.lines == 1);
    CHECK(first.size == doctest::Approx(11));
    const LabelPlan zoomed_out = viz::plan_label({40, 12}, widths, 4, 9.5f);  // wanted 4: written at the smallest size
    CHECK(zoomed_out.lines == 1);
    CHECK(zoomed_out.size == doctest::Approx(9.5));
    CHECK(viz::plan_label({25, 100}, widths, 11, 9.5f).lines == 0);  // 3 * 9.5 > 25: too narrow
    CHECK(viz::plan_label({200, 9}, widths, 11, 9.5f).lines == 0);   // lower than the smallest size
}

TEST_CASE("node_face: the label goes right of the glyph, inside the fill: not in a tag's point, inside an ellipse")
{
    viz::FaceStyle style;
    style.glyph = 8;
    const Rect box{{100, 50}, {200, 90}};  // 100 x 40 pixels
    for (const trace::NodeKind kind : {trace::NodeKind::op, trace::NodeKind::cast, trace::NodeKind::tensor, trace::NodeKind::collective}) {
        const viz::NodeFace face = viz::node_face(kind, box, 1.0f, style);
        CHECK(inside(face.inner, box));
        CHECK(inside(face.label, face.inner));
        CHECK(inside(face.glyph, face.inner));
        CHECK(face.glyph.max.x < face.label.min.x);  // the glyph never under the text
        CHECK(face.glyph.width() == doctest::Approx(8));
    }
    CHECK(viz::node_face(trace::NodeKind::cast, box, 1.0f, style).inner.max.x <= 200 - 20);  // the point is half the height long
    const viz::NodeFace ellipse = viz::node_face(trace::NodeKind::tensor, box, 1.0f, style);
    CHECK(ellipse.inner.width() < 100 / 1.41f);  // within the inscribed rectangle
    // A collective's hexagon: its corners lie a quarter of the width in, at the top and bottom.
    // 0.3 of the height above the middle (12 of 40 pixels), its side is 25 * 12 / 20 = 15 pixels
    // in from the box's left edge; the fill starts there, no further left.
    const viz::NodeFace hexagon = viz::node_face(trace::NodeKind::collective, box, 1.0f, style);
    CHECK(hexagon.inner.min.y >= 70 - 12);
    CHECK(hexagon.inner.max.y <= 70 + 12);
    CHECK(hexagon.inner.min.x >= 100 + 15);
    CHECK(hexagon.inner.max.x <= 200 - 15);
}

TEST_CASE("readable_zoom: from it up every node writes its first line, just below it some node writes none")
{
    const test::LinearBf16Step step;
    const viz::Layout layout = viz::layout_graph(step.graph, step.trace.to_dot());
    const viz::FaceStyle style;
    const float zoom = viz::readable_zoom(layout, step.graph, made_up_width, style);
    REQUIRE(zoom > viz::kMinZoom);
    REQUIRE(zoom < viz::kMaxZoom);
    auto lines_at = [&](std::size_t i, float z) {
        const viz::NodeBox& n = layout.nodes[i];
        const Rect area = viz::node_face(step.graph.nodes[i].kind, {{0, 0}, {n.size.x * z, n.size.y * z}}, z, style).label;
        return viz::plan_label({area.width(), area.height()}, {made_up_width(step.graph.nodes[i].label.front())}, 11 * z, style.smallest_text)
            .lines;
    };
    int unreadable_below = 0;
    for (std::size_t i = 0; i < layout.nodes.size(); ++i) {
        CHECK(lines_at(i, zoom) >= 1);
        CHECK(lines_at(i, zoom * 1.5f) >= 1);
        unreadable_below += lines_at(i, zoom * 0.98f) == 0;
    }
    CHECK(unreadable_below >= 1);
    // A wider font needs a closer view.
    CHECK(viz::readable_zoom(layout, step.graph, [](const std::string& s) { return 0.9f * float(s.size()); }, style) > zoom);
}
