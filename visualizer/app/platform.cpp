#include "visualizer/app/platform.h"

#include <SDL.h>
#include <SDL_opengl.h>
#include <backends/imgui_impl_opengl3.h>
#if __has_include(<backends/imgui_impl_sdl2.h>)  // Dear ImGui 1.89.3 renamed the SDL2 backend's header
#include <backends/imgui_impl_sdl2.h>
#else
#include <backends/imgui_impl_sdl.h>  // Debian 12's 1.86
#endif
#include <imgui.h>
#include <stb_image_write.h>

#include <filesystem>
#include <stdexcept>
#include <utility>
#include <vector>

#include "visualizer/app/imgui_setup.h"

namespace tinyamp::viz {
namespace {

SDL_Window* sdl(void* window) { return static_cast<SDL_Window*>(window); }

std::runtime_error sdl_error(const char* what) { return std::runtime_error(std::string(what) + ": " + SDL_GetError()); }

}  // namespace

Platform::Platform(const PlatformOptions& options)
{
    if (SDL_Init(SDL_INIT_VIDEO | SDL_INIT_TIMER) != 0) throw sdl_error("SDL_Init failed (is a display or SDL_VIDEODRIVER=offscreen available?)");
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 0);
    SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1);
    const Uint32 flags = SDL_WINDOW_OPENGL | (options.headless ? SDL_WINDOW_HIDDEN : SDL_WINDOW_SHOWN | SDL_WINDOW_RESIZABLE);
    SDL_Window* const window = SDL_CreateWindow("tinyamp-viz", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, options.width, options.height, flags);
    window_ = window;
    if (!window) {
        SDL_Quit();
        throw sdl_error("SDL_CreateWindow failed");
    }
    gl_context_ = SDL_GL_CreateContext(window);
    if (!gl_context_) {
        SDL_DestroyWindow(window);
        SDL_Quit();
        throw sdl_error("SDL_GL_CreateContext failed (OpenGL 3.0 is needed; Mesa's llvmpipe has it)");
    }
    SDL_GL_MakeCurrent(window, gl_context_);
    SDL_GL_SetSwapInterval(options.headless ? 0 : 1);

    fonts_ = start_imgui(options.ui_scale);

    ImGui_ImplSDL2_InitForOpenGL(window, gl_context_);
    ImGui_ImplOpenGL3_Init("#version 130");
}

Platform::~Platform()
{
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplSDL2_Shutdown();
    ImGui::DestroyContext();
    SDL_GL_DeleteContext(gl_context_);
    SDL_DestroyWindow(sdl(window_));
    SDL_Quit();
}

bool Platform::poll_events()
{
    SDL_Event event;
    while (SDL_PollEvent(&event)) {
        ImGui_ImplSDL2_ProcessEvent(&event);
        if (event.type == SDL_QUIT) quit_ = true;
        if (event.type == SDL_WINDOWEVENT && event.window.event == SDL_WINDOWEVENT_CLOSE) quit_ = true;
        if (event.type == SDL_DROPFILE) {
            dropped_ = event.drop.file;
            SDL_free(event.drop.file);
        }
    }
    return !quit_;
}

std::string Platform::take_dropped_file() { return std::exchange(dropped_, std::string()); }

void Platform::begin_frame()
{
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplSDL2_NewFrame();
    if (mouse_warped_) {
        // ImGui 1.86's SDL backend reads the mouse only for a window with SDL's mouse or keyboard
        // focus, which SDL's offscreen driver never grants (and SDL_WarpMouseInWindow does not set):
        // the position a script moved SDL's mouse to is read from SDL here instead.
        int x = 0, y = 0;
        SDL_GetMouseState(&x, &y);
        ImGui::GetIO().MousePos = ImVec2(float(x), float(y));
    }
    ImGui::NewFrame();
}

void Platform::render(const Backdrop& backdrop)
{
    ImGui::Render();
    const ImGuiIO& io = ImGui::GetIO();
    clear_backdrop(backdrop, int(io.DisplaySize.x), int(io.DisplaySize.y), 1.0f);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

void Platform::write_png(const std::string& path) const
{
    int width = 0, height = 0;
    SDL_GL_GetDrawableSize(sdl(window_), &width, &height);
    std::vector<unsigned char> pixels(std::size_t(width) * std::size_t(height) * 4);
    glFinish();
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadBuffer(GL_BACK);
    glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
    if (const GLenum error = glGetError(); error != GL_NO_ERROR)
        throw std::runtime_error("glReadPixels failed with GL error " + std::to_string(error));
    stbi_flip_vertically_on_write(1);  // OpenGL's rows run bottom-up, PNG's top-down
    // Write next to the target and rename, so a failed write never leaves half a PNG behind.
    const std::string temp = path + ".tmp";
    if (!stbi_write_png(temp.c_str(), width, height, 4, pixels.data(), width * 4))
        throw std::runtime_error("could not write the screenshot to '" + path + "' (is the folder there and writable?)");
    std::error_code ec;
    std::filesystem::rename(temp, path, ec);
    if (ec) {
        std::filesystem::remove(temp, ec);
        throw std::runtime_error("could not move the screenshot into place at '" + path + "'");
    }
}

void Platform::present() { SDL_GL_SwapWindow(sdl(window_)); }

void Platform::warp_mouse(int x, int y)
{
    SDL_WarpMouseInWindow(sdl(window_), x, y);
    mouse_warped_ = true;
}

void Platform::finish() const { glFinish(); }

std::string Platform::video_driver() const
{
    const char* name = SDL_GetCurrentVideoDriver();
    return name ? name : "none";
}

}  // namespace tinyamp::viz
