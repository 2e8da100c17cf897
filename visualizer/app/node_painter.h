#pragma once
// How one node of the graph is painted: its shape filled with its dtype's color (an op's rounded
// box, a cast's tag, a collective's hexagon, a tensor's ellipse), its dtype's glyph (dtype_glyph.h) at its left, the
// outlines that mark casts, parameters and the cast cache, and its label in the place node_face() gives it, at the size plan_label() picks. The
// legend draws its swatches with the same outlines.
#include <imgui.h>

#include <vector>

#include "tinyamp/trace/trace_graph.h"
#include "visualizer/model/dtype_glyph.h"
#include "visualizer/model/node_face.h"

namespace tinyamp::viz {

/// The sizes labels and glyphs are drawn at, from the UI font's size (so they follow --ui-scale).
FaceStyle face_style();
/// A label line's width at size 1, as the UI font writes it (readable_zoom() measures with it).
float text_width_at_size_1(const std::string& line);

std::vector<ImVec2> ellipse_points(ImVec2 min, ImVec2 max, int count = 40);
std::vector<ImVec2> rect_points(ImVec2 min, ImVec2 max);
/// DOT's "hexagon" in the box from `min` to `max`: a collective's node.
std::vector<ImVec2> hexagon_points(ImVec2 min, ImVec2 max);
void dashed_outline(ImDrawList* draw, const std::vector<ImVec2>& points, ImU32 color, float thickness, float dash);

/// Draws `glyph` filling the square from `min` to `max`.
void draw_glyph(ImDrawList* draw, Glyph glyph, ImVec2 min, ImVec2 max, ImU32 color);

/// The color a node's fill has on screen: its dtype's (or gray), faint when not `shown` yet.
ImU32 node_fill(const trace::GraphNode& node, bool shown);

/// Paints `node` in `box` (pixels), whose parts are `face`, at `zoom`. `graph_font` writes large labels.
void draw_node(ImDrawList* draw, ImFont* graph_font, const trace::GraphNode& node, const Rect& box, const NodeFace& face, bool shown,
               float zoom, const FaceStyle& style);

}  // namespace tinyamp::viz
