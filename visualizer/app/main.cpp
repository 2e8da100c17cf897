// tinyamp-viz: watch dtypes flow through a computation graph, forward and backward.
//
//     tinyamp-viz                                   the live MLP-on-digits scenario under bf16 autocast
//     tinyamp-viz --scenario mlp-f16-scaler         f16 with a GradScaler (see the loss-scale curve)
//     tinyamp-viz --trace build/trace.json          a trace written by any tinyamp program
//     tinyamp-viz --screenshot shot.png --frames 3  headless: render offscreen, write a PNG, exit
#include <SDL.h>
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <optional>
#include <vector>

#include <CLI/CLI.hpp>

#include "tinyamp/core/atomic_file.h"
#include "visualizer/app/node_boxes.h"
#include "visualizer/app/platform.h"
#include "visualizer/app/script_driver.h"
#include "visualizer/app/viz_app.h"

using namespace tinyamp;
using namespace tinyamp::viz;

namespace {

using Clock = std::chrono::steady_clock;

double milliseconds(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

double percentile(std::vector<double> values, double q)
{
    if (values.empty()) return 0;
    std::sort(values.begin(), values.end());
    return values[std::min(values.size() - 1, std::size_t(q * double(values.size())))];
}

// Headless runs need no display: SDL's offscreen driver renders with EGL (Mesa's llvmpipe).
void prefer_offscreen_driver()
{
    if (!std::getenv("SDL_VIDEODRIVER") && !std::getenv("DISPLAY") && !std::getenv("WAYLAND_DISPLAY"))
        setenv("SDL_VIDEODRIVER", "offscreen", 0);
}

}  // namespace

int main(int argc, char** argv)
{
    const Clock::time_point started = Clock::now();
    CLI::App cli{"tinyamp-viz: the computation graph colored by dtype, stepped forward and backward"};
    AppOptions options;
    std::string screenshot, script, node_boxes, size = "1280x800";
    int frames = 0;
    bool timing = false, list = false, print_trace = false;
    cli.add_option("--scenario", options.scenario, "a live scenario (--list-scenarios names them)")->capture_default_str();
    cli.add_option("--trace", options.trace_path, "show this trace JSON (Trace::to_json) instead of a scenario");
    cli.add_option("--steps", options.steps, "training steps to run before the first frame")->check(CLI::NonNegativeNumber);
    cli.add_option("--position", options.position, "the timeline: end, start, backward, or a number of events (default: the scenario's opening)");
    cli.add_option("--select", options.select,
                   "a node to inspect: e12, an op such as linear, backward:OP, module:PATH, or none (default: the node of the scenario's lesson)");
    cli.add_option("--tab", options.tab, "the left panel's tab: scenario, policy or file")->capture_default_str();
    cli.add_option("--screenshot", screenshot, "headless: render --frames frames offscreen, write the last as this PNG, exit");
    cli.add_option("--node-boxes", node_boxes,
                   "with --screenshot: write the last frame's node boxes, legend and minimap, in pixels, to this file (for viz_screenshot_check --labels)");
    cli.add_option("--frames", frames, "frames to render headless (default 3 with --screenshot)")->check(CLI::PositiveNumber);
    cli.add_option("--size", size, "window size WIDTHxHEIGHT")->capture_default_str();
    std::string ui_scale_text = "1";
    cli.add_option("--ui-scale", ui_scale_text, "text and widgets this many times larger, 0.75 to 3 (2 for a HiDPI screen)")->capture_default_str();
    double zoom = 1;
    CLI::Option* zoom_option =
        cli.add_option("--zoom", zoom, "the first view centred on the inspected node (--select, else the timeline's), at this factor of its zoom");
    cli.add_option("--script", script, "headless: use the GUI as a script says (clicks, wheel, keys through SDL) and check what it shows; exit 1 if a check fails");
    cli.add_flag("--timing", timing, "print the start-up time and the frame times (median, 90th percentile)");
    cli.add_flag("--list-scenarios", list, "print the scenario names and exit");
    cli.add_flag("--print-trace", print_trace, "print the trace's events, one per line, and exit (no window)");
    CLI11_PARSE(cli, argc, argv);
    if (zoom_option->count() > 0) options.zoom = zoom;

    if (list) {
        for (const std::string& name : Scenario::names()) std::printf("%s\n", name.c_str());
        return 0;
    }
    if (print_trace) {
        try {
            const Scenario scenario = [&] {
                Scenario s(Scenario::preset(options.scenario));
                if (options.steps > 0) s.step(options.steps);
                return s;
            }();
            std::cout << scenario.trace();
            return 0;
        } catch (const std::exception& e) {
            std::fprintf(stderr, "tinyamp-viz: %s\n", e.what());
            return 1;
        }
    }
    PlatformOptions platform_options;
    if (std::sscanf(size.c_str(), "%dx%d", &platform_options.width, &platform_options.height) != 2 || platform_options.width < 320 ||
        platform_options.height < 240) {
        std::fprintf(stderr, "tinyamp-viz: --size '%s' is not WIDTHxHEIGHT of at least 320x240 (e.g. 1280x800)\n", size.c_str());
        return 2;
    }
    char* scale_end = nullptr;
    const float ui_scale = std::strtof(ui_scale_text.c_str(), &scale_end);
    if (ui_scale_text.empty() || *scale_end != '\0' || !valid_ui_scale(ui_scale)) {
        std::fprintf(stderr, "tinyamp-viz: --ui-scale '%s' is not a number from %g to %g (1: 15 px text; 2 for a HiDPI screen)\n",
                     ui_scale_text.c_str(), kMinUiScale, kMaxUiScale);
        return 2;
    }
    platform_options.ui_scale = ui_scale;
    if (!node_boxes.empty() && screenshot.empty()) {
        std::fprintf(stderr, "tinyamp-viz: --node-boxes describes a screenshot: give --screenshot too\n");
        return 2;
    }
    options.record_drawn = !node_boxes.empty();
    const bool headless = !screenshot.empty() || frames > 0 || !script.empty();
    if (!screenshot.empty() && frames == 0) frames = 3;
    platform_options.headless = headless;
    if (headless) prefer_offscreen_driver();

    try {
        Platform platform(platform_options);
        if (!headless && platform.video_driver() == "offscreen") {
            std::fprintf(stderr, "tinyamp-viz: no display found (SDL chose its offscreen driver), so there is no window to show.\n"
                                 "Run it on a desktop, under Xvfb, or headless with --screenshot out.png.\n");
            return 2;
        }
        VizApp app(options, platform.graph_font());
        std::optional<ScriptDriver> driver;
        if (!script.empty()) {
            driver = ScriptDriver::load(script);
            frames = std::max(frames, 1);  // the first frame draws the graph: the script starts after it
        }

        std::vector<double> frame_ms;
        double first_frame_ms = 0;
        Clock::time_point last = Clock::now();
        constexpr int kScriptFrameLimit = 10000;  // a script that never ends is a bug in it
        for (int frame = 0; headless ? frame < frames || (driver && !driver->done() && frame < kScriptFrameLimit) : true; ++frame) {
            if (driver && frame > 0) driver->before_frame(platform, app);
            if (!platform.poll_events()) break;
            if (const std::string dropped = platform.take_dropped_file(); !dropped.empty()) app.open_trace(dropped);
            const Clock::time_point now = Clock::now();
            const double seconds = headless ? 1.0 / 60 : std::chrono::duration<double>(now - last).count();
            last = now;

            platform.begin_frame();
            const ImGuiIO& io = ImGui::GetIO();
            app.frame(seconds, io.DisplaySize.x, io.DisplaySize.y);
            platform.render(app.backdrop());
            if (headless && frame + 1 == frames && !screenshot.empty()) platform.write_png(screenshot);
            platform.present();
            if (driver && frame > 0) driver->after_frame(app);
            if (timing) {
                platform.finish();
                const double ms = milliseconds(Clock::now() - now);
                if (frame == 0) first_frame_ms = milliseconds(Clock::now() - started);
                else frame_ms.push_back(ms);
            }
        }
        if (driver) {
            std::printf("tinyamp-viz: script %s: %d check(s) failed\n", script.c_str(), driver->failures());
            if (driver->failures() > 0 || !driver->done()) return 1;
        }
        if (!node_boxes.empty()) io::write_file_atomically(node_boxes, node_boxes_text(app.camera().drawn, app.document().graph(), app.document().inspected()));
        if (!screenshot.empty())
            std::printf("tinyamp-viz: wrote %s (%dx%d, %d frames, video driver %s, %zu nodes)\n", screenshot.c_str(), platform_options.width,
                        platform_options.height, frames, platform.video_driver().c_str(), app.document().graph().nodes.size());
        if (timing) {
            const double median = percentile(frame_ms, 0.5);
            std::printf("tinyamp-viz timing: %zu nodes, %zu edges; first frame shown %.0f ms after start; frame time median %.1f ms "
                        "(%.0f fps), 90th percentile %.1f ms over %zu frames\n",
                        app.document().graph().nodes.size(), app.document().graph().edges.size(), first_frame_ms, median,
                        median > 0 ? 1000.0 / median : 0.0, percentile(frame_ms, 0.9), frame_ms.size());
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "tinyamp-viz: %s\n", e.what());
        return 1;
    }
    return 0;
}
