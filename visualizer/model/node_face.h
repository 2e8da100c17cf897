#pragma once
// What goes inside a node's box on screen: the dtype glyph in a column at its left, the label
// centred in the rest, and how large the label is written; and from that the readable zoom, the
// smallest zoom at which every node shows at least the first line of its label. No GUI here: the
// text is measured by a function the caller passes (the GUI passes its font), so the tests use a
// made-up font (tests/visualizer/node_face_test.cpp).
#include <functional>
#include <string>
#include <vector>

#include "visualizer/model/camera.h"

namespace tinyamp::viz {

/// The sizes the graph view draws with, in pixels. The defaults are UI scale 1.
struct FaceStyle {
    float label_points = 11.0f;  ///< the labels' size in layout points (Graphviz sized the boxes for it)
    float smallest_text = 9.5f;  ///< no label is written smaller: below it, a label is left out
    float glyph = 8.0f;          ///< the dtype glyph's side up to zoom 1, then grown with the zoom
};

/// The parts of a node's box on the canvas, in pixels.
struct NodeFace {
    Rect inner;   ///< what the shape's fill surely covers, inside its outline: for an ellipse the
                  ///< inscribed rectangle, for a cast's tag the part left of its pointed end, for
                  ///< a collective's hexagon the middle 0.7 of its width and 0.6 of its height
    Rect glyph;   ///< the dtype glyph: at the left of `inner`, centred vertically
    Rect label;   ///< the rest of `inner`, right of the glyph: where the label is written
    float outline = 0;  ///< the outline's width (drawn on the shape's border)
    float rounding = 0; ///< an op box's corner radius
};

/// Where the glyph and the label go in a node of `kind` whose box is `box` (pixels) at `zoom`.
/// The glyph's column is kept even for a node without a dtype, so that every label sits alike.
NodeFace node_face(trace::NodeKind kind, const Rect& box, float zoom, const FaceStyle& style);

/// How a label is written: its first `lines` lines (0: none) at `size` pixels.
struct LabelPlan {
    int lines = 0;
    float size = 0;
};
inline constexpr float kLineSpacing = 1.15f;  ///< a line's height, in text sizes

/// The label whose lines are `widths` wide at size 1, in an `area` of pixels, wanted at `wanted`
/// pixels (label_points * zoom): all lines at the largest size up to max(wanted, smallest) that
/// fits; else the first line alone; never smaller than `smallest`, or nothing.
LabelPlan plan_label(Vec2 area, const std::vector<float>& widths, float wanted, float smallest);

/// A line's width in pixels at size 1, as the GUI's font draws it.
using MeasureText = std::function<float(const std::string&)>;

/// The smallest zoom (within [kMinZoom, kMaxZoom]) at which plan_label() writes at least the first
/// line of every node of `graph` laid out as `layout`. kMaxZoom if even that is too small.
float readable_zoom(const Layout& layout, const trace::TraceGraph& graph, const MeasureText& measure, const FaceStyle& style);

}  // namespace tinyamp::viz
