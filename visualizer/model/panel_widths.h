#pragma once
// How wide the window's side panels are: the left one (scenario, policy table, curves) and the
// inspector on the right. They follow the window, so that at 900x600 the graph still has most of
// the width and at 2560x1600 the panels are not slivers. No GUI here (tests/visualizer/panel_widths_test.cpp).

namespace tinyamp::viz {

struct PanelWidths {
    float left = 0;   ///< the left panel, pixels
    float right = 0;  ///< the inspector, pixels
};

/// The panels of a window `window_width` pixels wide at UI scale `scale` (1: 15 px text): each a
/// share of the window (24% and 25%), kept between a least and a most width that grow with the
/// scale, and together at most half of the window, so that the graph always gets the larger part.
PanelWidths panel_widths(float window_width, float scale);

}  // namespace tinyamp::viz
