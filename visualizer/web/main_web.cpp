// tinyamp-viz in the browser: the same app as ../app/main.cpp, on the page's canvas. The page's
// address chooses what it opens on (url_options.h); the browser calls frame() once per display
// refresh (emscripten_set_main_loop), where the native app loops itself.
//
// For the browser test and the curious, each frame leaves its figures on the page's
// window.tinyampViz: {frames, frameMs (the last 120), appMs (the part of each that is the app's
// own work, before WebGL draws), intervalMs (from one frame's start to the next's: the rate the
// browser gives), firstFrameMs (since the page started), title, nodes (the graph's boxes now),
// error}; the tab's title is the scenario's summary
// ("... step 3 ..."). And two functions say where to click, in canvas pixels ("x y", or "" when
// not drawn): Module.ccall("tinyamp_item_center", "string", ["string"], ["step"]) for a button
// (ui_targets.h's labels), and tinyamp_node_center for a node ("e12", an op such as linear).
#include <emscripten/emscripten.h>
#include <imgui.h>

#include <exception>
#include <memory>
#include <optional>
#include <string>

#include "tinyamp/support/parallel.h"
#include "visualizer/app/platform.h"
#include "visualizer/app/ui_targets.h"
#include "visualizer/app/viz_app.h"
#include "visualizer/web/url_options.h"

using namespace tinyamp;
using namespace tinyamp::viz;

namespace {

EM_JS(void, report_frame, (int frames, double frame_ms, double app_ms, const char* title, int nodes), {
    const viz = window.tinyampViz || (window.tinyampViz = {frames : 0, frameMs : [], appMs : [], firstFrameMs : null, title : "", error : null});
    viz.frames = frames;
    viz.nodes = nodes;
    viz.appMs.push(app_ms);
    const now = performance.now();
    if (viz.lastFrameAt) (viz.intervalMs = viz.intervalMs || []).push(now - viz.lastFrameAt);
    viz.lastFrameAt = now;
    if (viz.intervalMs && viz.intervalMs.length > 120) viz.intervalMs.shift();
    if (viz.appMs.length > 120) viz.appMs.shift();
    if (viz.firstFrameMs === null) viz.firstFrameMs = performance.now();
    viz.frameMs.push(frame_ms);
    if (viz.frameMs.length > 120) viz.frameMs.shift();
    viz.title = UTF8ToString(title);
    document.title = "tinyamp: " + viz.title;
});

EM_JS(void, report_error, (const char* message), {
    const text = UTF8ToString(message);
    (window.tinyampViz = window.tinyampViz || {}).error = text;
    const box = document.getElementById("error");
    if (box) {
        box.textContent = text;
        box.style.display = "block";
    }
    console.error(text);
});

struct Page {
    Platform platform;
    VizApp app;
    int frames = 0;
    double last_ms = 0;

    Page(const PageOptions& options, const PlatformOptions& platform_options)
        : platform(platform_options), app(options.app, platform.graph_font())
    {
    }
};

std::unique_ptr<Page> page;

void frame()
{
    try {
        const double start = emscripten_get_now();
        page->platform.poll_events();
        page->platform.begin_frame();
        const ImGuiIO& io = ImGui::GetIO();
        const double seconds = page->last_ms > 0 ? (start - page->last_ms) / 1000.0 : 1.0 / 60;
        page->last_ms = start;
        page->app.frame(seconds, io.DisplaySize.x, io.DisplaySize.y);
        const double app_ms = emscripten_get_now() - start;  // the app's own work: panels, graph, draw lists
        page->platform.render(page->app.backdrop());
        page->platform.finish();  // the frame's time includes the GPU's part, as --timing's does
        report_frame(++page->frames, emscripten_get_now() - start, app_ms, page->app.document().title().c_str(),
                     int(page->app.document().graph().nodes.size()));
    } catch (const std::exception& e) {
        report_error((std::string("tinyamp-viz stopped: ") + e.what()).c_str());
        emscripten_cancel_main_loop();
    }
}

std::string point_text(float x, float y) { return std::to_string(x) + " " + std::to_string(y); }

}  // namespace

extern "C" {

EMSCRIPTEN_KEEPALIVE const char* tinyamp_item_center(const char* label)
{
    static std::string text;
    const std::optional<ImVec2> p = item_center(label);
    text = p ? point_text(p->x, p->y) : "";
    return text.c_str();
}

EMSCRIPTEN_KEEPALIVE const char* tinyamp_node_center(const char* name)
{
    static std::string text;
    const std::optional<ImVec2> p = page ? page->app.node_center(name) : std::nullopt;
    text = p ? point_text(p->x, p->y) : "";
    return text.c_str();
}

}  // extern "C"

int main()
{
    try {
        set_num_threads(1);  // the page runs on the browser's one thread: no SharedArrayBuffer needed
        const PageOptions options = parse_page_options(emscripten_run_script_string("location.search"));
        PlatformOptions platform_options;
        platform_options.ui_scale = options.ui_scale;
        page = std::make_unique<Page>(options, platform_options);
    } catch (const std::exception& e) {
        report_error((std::string("tinyamp-viz could not start: ") + e.what()).c_str());
        return 1;
    }
    emscripten_set_main_loop(frame, 0, true);  // 0: at the display's rate (requestAnimationFrame)
    return 0;
}
