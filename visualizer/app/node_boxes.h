#pragma once
// `tinyamp-viz --node-boxes FILE`: what the last frame drew, as text a screenshot check reads
// (viz_screenshot_check SHOT.png --labels FILE). One line per node whose box lies wholly inside
// the canvas, then the legend and the minimap when shown; pixels of the screenshot, y down; last,
// the node the inspector shows (which the first view keeps in sight), when there is one:
//
//   node e12 op 412.0 300.5 470.0 326.5 fill #0072b2 outline 1.0 round 3.0 marks 412.0 300.5 418.0 326.5
//   legend 271.5 57.0 420.0 180.0
//   minimap 1090.0 620.0 1262.0 780.0
//   inspected e12
//
// `fill` is the fill as drawn, `outline` its border's width, `round` an op box's corner radius,
// `marks` the column at the box's left that holds the dtype glyph and the cast cache's dot (the
// label is written right of it).
#include <string>

#include "visualizer/app/graph_view.h"

namespace tinyamp::viz {

/// The text described above for `drawn`, a frame of `graph` whose inspector shows node `inspected`
/// (-1 for none).
std::string node_boxes_text(const DrawnFrame& drawn, const trace::TraceGraph& graph, int inspected);

}  // namespace tinyamp::viz
