#pragma once
// What each frame starts from, before ImGui's draw data: the windows' background, and one
// rectangle in another color (the graph's canvas). Both are painted with glClear (the rectangle
// scissored), which costs next to nothing, where a rectangle ImGui fills is a textured, blended
// quad: a browser without a GPU (software WebGL, as in the browser test) pays ~6 ms a frame for
// each one that covers the window.
#include <cstdint>

namespace tinyamp::viz {

struct Backdrop {
    std::uint32_t background = 0;  ///< ImU32 (ImGui's RGBA byte order)
    std::uint32_t rect_color = 0;  ///< ImU32
    float rect_min_x = 0, rect_min_y = 0, rect_max_x = 0, rect_max_y = 0;  ///< window pixels; empty: none
};

/// Clears the framebuffer (`width` x `height` pixels, `scale` of them per window pixel) to the
/// backdrop. Needs the GL context current.
void clear_backdrop(const Backdrop& backdrop, int width, int height, float scale);

}  // namespace tinyamp::viz
