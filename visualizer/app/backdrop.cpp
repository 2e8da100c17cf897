#include "visualizer/app/backdrop.h"

#ifdef __EMSCRIPTEN__
#include <GLES3/gl3.h>
#else
#include <SDL_opengl.h>
#endif

#include <algorithm>
#include <cmath>

namespace tinyamp::viz {
namespace {

void clear_to(std::uint32_t rgba)
{
    auto channel = [&](int shift) { return float((rgba >> shift) & 0xffu) / 255.0f; };
    glClearColor(channel(0), channel(8), channel(16), channel(24));
    glClear(GL_COLOR_BUFFER_BIT);
}

}  // namespace

void clear_backdrop(const Backdrop& backdrop, int width, int height, float scale)
{
    glViewport(0, 0, width, height);
    glDisable(GL_SCISSOR_TEST);
    clear_to(backdrop.background);
    // GL's rows count from the bottom.
    const int x0 = std::clamp(int(std::lround(backdrop.rect_min_x * scale)), 0, width);
    const int x1 = std::clamp(int(std::lround(backdrop.rect_max_x * scale)), 0, width);
    const int y0 = std::clamp(int(std::lround(backdrop.rect_min_y * scale)), 0, height);
    const int y1 = std::clamp(int(std::lround(backdrop.rect_max_y * scale)), 0, height);
    if (x1 <= x0 || y1 <= y0) return;
    glEnable(GL_SCISSOR_TEST);
    glScissor(x0, height - y1, x1 - x0, y1 - y0);
    clear_to(backdrop.rect_color);
    glDisable(GL_SCISSOR_TEST);  // ImGui's backend sets its own scissor for each draw
}

}  // namespace tinyamp::viz
