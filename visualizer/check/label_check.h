#pragma once
// viz_screenshot_check SHOT.png --labels BOXES: every node box that tinyamp-viz --node-boxes
// listed has its label written in the screenshot, no box lies under the legend or the minimap,
// and the node the inspector shows (the file's `inspected` line, if any) is among the boxes: in
// sight, wholly.
//
// For each box the check looks at the pixels the shape's fill surely covers (an op's box less its
// rounded corners, a cast's tag less its pointed end, an ellipse's inscribed rectangle; less the
// outline, and less the `marks` column of the dtype glyph and the cache's dot). There the fill
// must be the most of it (else the box file does not describe this image), and text shows as
// pixels far from the fill: fewer than kMinTextPixels of them, and the node has no label.
#include <string>

namespace tinyamp::viz::check {

/// Pixels of the label's text a box needs (a one-letter label at the smallest size has ~25).
inline constexpr long kMinTextPixels = 8;

/// Checks `rgb` (width x height, 3 bytes a pixel, rows top-down) against the box file at `boxes`;
/// prints one FAILED line per problem and a summary. Returns the number of problems (0: passes).
int check_labels(const unsigned char* rgb, int width, int height, const std::string& boxes);

}  // namespace tinyamp::viz::check
