// The Platform of the web page: Emscripten's GLFW on the page's <canvas id="canvas">, WebGL2, and
// Dear ImGui's GLFW + OpenGL3 backends (GL ES 3 / "#version 300 es"). The same class as
// ../app/platform.cpp, the native SDL2 one: everything above it (the app, its panels, the model,
// the scenarios) is the same code in both. What a browser cannot do says so: no PNG file to
// write (the browser test takes its own screenshots), no mouse to warp (it sends real events).
#include "visualizer/app/platform.h"

#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <emscripten/emscripten.h>
#include <imgui.h>

#include <stdexcept>
#include <string>

#include "visualizer/app/imgui_setup.h"

namespace tinyamp::viz {
namespace {

GLFWwindow* glfw(void* window) { return static_cast<GLFWwindow*>(window); }

// The browser window's size in CSS pixels: the canvas fills it.
EM_JS(int, browser_width, (), { return window.innerWidth; });
EM_JS(int, browser_height, (), { return window.innerHeight; });

}  // namespace

Platform::Platform(const PlatformOptions& options)
{
    if (!glfwInit()) throw std::runtime_error("glfwInit failed: this browser gave no WebGL context");
    glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_ES_API);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);  // WebGL2
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
    // Only a color buffer, opaque: no depth or stencil buffer for the browser to clear each frame,
    // no alpha for its compositor to blend with the page (ImGui uses none of them).
    glfwWindowHint(GLFW_DEPTH_BITS, 0);
    glfwWindowHint(GLFW_STENCIL_BITS, 0);
    glfwWindowHint(GLFW_ALPHA_BITS, 0);
    const int width = browser_width() > 0 ? browser_width() : options.width;
    const int height = browser_height() > 0 ? browser_height() : options.height;
    GLFWwindow* const window = glfwCreateWindow(width, height, "tinyamp-viz", nullptr, nullptr);
    if (!window) {
        glfwTerminate();
        throw std::runtime_error("could not create a WebGL2 context on the page's canvas (is WebGL2 turned on in this browser?)");
    }
    window_ = window;
    glfwMakeContextCurrent(window);

    fonts_ = start_imgui(options.ui_scale);
    ImGui_ImplGlfw_InitForOpenGL(window, true);
    ImGui_ImplOpenGL3_Init("#version 300 es");
}

Platform::~Platform()
{
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    glfwDestroyWindow(glfw(window_));
    glfwTerminate();
}

bool Platform::poll_events()
{
    // The canvas follows the browser window's size.
    int width = 0, height = 0;
    glfwGetWindowSize(glfw(window_), &width, &height);
    if (browser_width() > 0 && browser_height() > 0 && (width != browser_width() || height != browser_height()))
        glfwSetWindowSize(glfw(window_), browser_width(), browser_height());
    glfwPollEvents();
    return true;  // a page is never closed from inside
}

std::string Platform::take_dropped_file() { return {}; }

void Platform::begin_frame()
{
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
}

void Platform::render(const Backdrop& backdrop)
{
    ImGui::Render();
    int width = 0, height = 0;
    glfwGetFramebufferSize(glfw(window_), &width, &height);
    clear_backdrop(backdrop, width, height, ImGui::GetIO().DisplayFramebufferScale.x);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

void Platform::write_png(const std::string& path) const
{
    throw std::runtime_error("the web page cannot write '" + path + "': take the browser's screenshot instead");
}

void Platform::present() {}  // the browser shows the frame when the main-loop callback returns

// WebGL's finish() does not wait in Chromium; reading a pixel back does: it returns once the GPU
// process has drawn everything this frame asked for.
void Platform::finish() const
{
    unsigned char pixel[4];
    glReadPixels(0, 0, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, pixel);
}

std::string Platform::video_driver() const { return "webgl2"; }

void Platform::warp_mouse(int, int) {}  // scripts are native; the browser test sends real mouse events

}  // namespace tinyamp::viz
