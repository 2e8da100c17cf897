#include "visualizer/model/panel_widths.h"

#include <algorithm>

namespace tinyamp::viz {

PanelWidths panel_widths(float window_width, float scale)
{
    // The least widths hold the panels' widest rows at 15 px text (the scenario's sliders, the
    // inspector's tables); past the most, more width only adds empty space.
    PanelWidths w{std::clamp(0.24f * window_width, 190 * scale, 480 * scale), std::clamp(0.25f * window_width, 220 * scale, 560 * scale)};
    const float most = 0.5f * window_width;
    if (w.left + w.right > most) {  // a small window or a large scale: the graph keeps half
        const float shrink = most / (w.left + w.right);
        w = {w.left * shrink, w.right * shrink};
    }
    return w;
}

}  // namespace tinyamp::viz
