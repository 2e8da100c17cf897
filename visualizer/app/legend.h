#pragma once
// The graph's legend, in the canvas' top-left corner: a "dtypes" header, then a swatch and the
// glyph (dtype_glyph.h) for each dtype that fills a node, for each FP8/FP4 format an op cast to
// inside (TraceGraph::scaled_cast_dtypes, "f8e4m3fn (inside fp8_linear)"), and for each mark
// that is not a dtype (casts, the cast cache, parameters). A click on the header folds it to that one line. Its size follows its text (and
// so the UI scale), so the fit can keep its corner clear.
#include <imgui.h>

#include "tinyamp/trace/trace_graph.h"
#include "visualizer/model/camera.h"

namespace tinyamp::viz {

/// The legend's width and height in pixels: the header alone when `folded`.
ImVec2 legend_size(const trace::TraceGraph& graph, bool folded);
/// Draws the legend with its top-left at `at`; returns the header's rectangle (the click target).
Rect draw_legend(ImDrawList* draw, ImVec2 at, const trace::TraceGraph& graph, bool folded);

}  // namespace tinyamp::viz
