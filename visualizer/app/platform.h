#pragma once
// The window, the OpenGL context and Dear ImGui's platform + OpenGL3 backends, and reading the
// last frame back as a PNG (the headless screenshot mode). Nothing tinyamp-specific here.
// Two implementations of this one class: platform.cpp (SDL2, the native app) and
// ../web/platform_web.cpp (Emscripten's GLFW on a WebGL2 canvas, the web page).
#include <string>

#include "visualizer/app/backdrop.h"
#include "visualizer/app/imgui_setup.h"

namespace tinyamp::viz {

struct PlatformOptions {
    int width = 1280;
    int height = 800;
    bool headless = false;  ///< no vsync, a hidden window: frames are rendered only to be read back
    float ui_scale = 1.0f;  ///< fonts loaded this many times larger, and ImGui's style sizes scaled (--ui-scale)
};

class Platform {
public:
    explicit Platform(const PlatformOptions& options);  ///< throws std::runtime_error naming what failed
    ~Platform();
    Platform(const Platform&) = delete;
    Platform& operator=(const Platform&) = delete;

    /// Handles pending events; false once the user closed the window. Dropped files are queued.
    bool poll_events();
    /// A file dropped on the window since the last call, or "".
    std::string take_dropped_file();
    void begin_frame();
    /// Clears the screen to `backdrop` and renders ImGui's draw data over it; the frame is shown
    /// by present().
    void render(const Backdrop& backdrop);
    /// Writes what render() drew as a PNG (call before present()). Throws on failure.
    void write_png(const std::string& path) const;
    void present();
    /// Waits until the GPU has drawn everything (frame timing).
    void finish() const;

    ImFont* ui_font() const { return fonts_.ui; }
    ImFont* graph_font() const { return fonts_.graph; }  ///< a large font, scaled down for node labels
    std::string video_driver() const;
    /// Puts SDL's mouse at window pixel (x, y), as a real move does (SDL's state and a motion event);
    /// from then on each frame reads the mouse position from SDL's state (see begin_frame()).
    void warp_mouse(int x, int y);

private:
    void* window_ = nullptr;  // SDL_Window* natively, GLFWwindow* on the web
    // [[maybe_unused]]: members of the SDL2 platform only; the web one keeps its context in GLFW.
    [[maybe_unused]] void* gl_context_ = nullptr;
    ImGuiFonts fonts_;
    std::string dropped_;
    [[maybe_unused]] bool quit_ = false;
    [[maybe_unused]] bool mouse_warped_ = false;  // a script moves the mouse: begin_frame() reads SDL's mouse state
};

}  // namespace tinyamp::viz
