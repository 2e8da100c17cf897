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

#include "tinyamp/support/atomic_file.h"
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

// The command line: the app's options, and what this program does with the window.
struct CommandLine {
    AppOptions options;
    std::string screenshot, script, node_boxes, size = "1280x800", ui_scale = "1";
    int frames = 0;
    double zoom = 1;
    bool timing = false, list = false, print_trace = false;
};

// Declares tinyamp-viz's options, read into `line`; returns --zoom's (given or not matters).
CLI::Option* add_options(CLI::App& cli, CommandLine& line)
{
    AppOptions& options = line.options;
    cli.add_option("--scenario", options.scenario, "a live scenario (--list-scenarios names them)")->capture_default_str();
    cli.add_option("--trace", options.trace_path, "show this trace JSON (Trace::to_json) instead of a scenario");
    cli.add_option("--steps", options.steps, "training steps to run before the first frame")->check(CLI::NonNegativeNumber);
    cli.add_option("--position", options.position, "the timeline: end, start, backward, or a number of events (default: the scenario's opening)");
    cli.add_option("--select", options.select,
                   "a node to inspect: e12, an op such as linear, backward:OP, module:PATH, or none (default: the node of the scenario's lesson)");
    cli.add_option("--tab", options.tab, "the left panel's tab: scenario, policy or file")->capture_default_str();
    cli.add_option("--screenshot", line.screenshot, "headless: render --frames frames offscreen, write the last as this PNG, exit");
    cli.add_option("--node-boxes", line.node_boxes,
                   "with --screenshot: write the last frame's node boxes, legend and minimap, in pixels, to this file (for viz_screenshot_check --labels)");
    cli.add_option("--frames", line.frames, "frames to render headless (default 3 with --screenshot)")->check(CLI::PositiveNumber);
    cli.add_option("--size", line.size, "window size WIDTHxHEIGHT")->capture_default_str();
    cli.add_option("--ui-scale", line.ui_scale, "text and widgets this many times larger, 0.75 to 3 (2 for a HiDPI screen)")->capture_default_str();
    CLI::Option* zoom =
        cli.add_option("--zoom", line.zoom, "the first view centred on the inspected node (--select, else the timeline's), at this factor of its zoom");
    cli.add_option("--script", line.script, "headless: use the GUI as a script says (clicks, wheel, keys through SDL) and check what it shows; exit 1 if a check fails");
    cli.add_flag("--timing", line.timing, "print the start-up time and the frame times (median, 90th percentile)");
    cli.add_flag("--list-scenarios", line.list, "print the scenario names and exit");
    cli.add_flag("--print-trace", line.print_trace, "print the trace's events, one per line, and exit (no window)");
    return zoom;
}

// --print-trace: the scenario's trace after --steps, one event per line (no window).
int print_trace(const AppOptions& options)
{
    try {
        Scenario scenario(Scenario::preset(options.scenario));
        if (options.steps > 0) scenario.step(options.steps);
        std::cout << scenario.trace();
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "tinyamp-viz: %s\n", e.what());
        return 1;
    }
}

// The window's options from --size and --ui-scale, and the headless run's defaults (3 frames for
// a screenshot); nullopt once it has said what is wrong.
std::optional<PlatformOptions> window_options(CommandLine& line)
{
    PlatformOptions platform;
    if (std::sscanf(line.size.c_str(), "%dx%d", &platform.width, &platform.height) != 2 || platform.width < 320 || platform.height < 240) {
        std::fprintf(stderr, "tinyamp-viz: --size '%s' is not WIDTHxHEIGHT of at least 320x240 (e.g. 1280x800)\n", line.size.c_str());
        return std::nullopt;
    }
    char* scale_end = nullptr;
    platform.ui_scale = std::strtof(line.ui_scale.c_str(), &scale_end);
    if (line.ui_scale.empty() || *scale_end != '\0' || !valid_ui_scale(platform.ui_scale)) {
        std::fprintf(stderr, "tinyamp-viz: --ui-scale '%s' is not a number from %g to %g (1: 15 px text; 2 for a HiDPI screen)\n",
                     line.ui_scale.c_str(), kMinUiScale, kMaxUiScale);
        return std::nullopt;
    }
    if (!line.node_boxes.empty() && line.screenshot.empty()) {
        std::fprintf(stderr, "tinyamp-viz: --node-boxes describes a screenshot: give --screenshot too\n");
        return std::nullopt;
    }
    line.options.record_drawn = !line.node_boxes.empty();
    platform.headless = !line.screenshot.empty() || line.frames > 0 || !line.script.empty();
    if (!line.screenshot.empty() && line.frames == 0) line.frames = 3;
    return platform;
}

// The first frame's time since start-up and each later frame's (--timing).
struct Timing {
    Clock::time_point started;
    double first_frame_ms = 0;
    std::vector<double> frame_ms;
};

// Renders frames until the window closes or, headless, until --frames are drawn and the script
// is done; the screenshot is the last of --frames.
void run_frames(Platform& platform, VizApp& app, ScriptDriver* driver, const CommandLine& line, bool headless, Timing& timing)
{
    Clock::time_point last = Clock::now();
    constexpr int kScriptFrameLimit = 10000;  // a script that never ends is a bug in it
    for (int frame = 0; headless ? frame < line.frames || (driver && !driver->done() && frame < kScriptFrameLimit) : true; ++frame) {
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
        if (headless && frame + 1 == line.frames && !line.screenshot.empty()) platform.write_png(line.screenshot);
        platform.present();
        if (driver && frame > 0) driver->after_frame(app);
        if (line.timing) {
            platform.finish();
            const double ms = milliseconds(Clock::now() - now);
            if (frame == 0) timing.first_frame_ms = milliseconds(Clock::now() - timing.started);
            else timing.frame_ms.push_back(ms);
        }
    }
}

// After the frames: the node boxes' file, what was written, and the frame times.
void report(const Platform& platform, const PlatformOptions& window, const VizApp& app, const CommandLine& line, const Timing& timing)
{
    const trace::TraceGraph& graph = app.document().graph();
    if (!line.node_boxes.empty()) io::write_file_atomically(line.node_boxes, node_boxes_text(app.camera().drawn, graph, app.document().inspected()));
    if (!line.screenshot.empty())
        std::printf("tinyamp-viz: wrote %s (%dx%d, %d frames, video driver %s, %zu nodes)\n", line.screenshot.c_str(), window.width,
                    window.height, line.frames, platform.video_driver().c_str(), graph.nodes.size());
    if (line.timing) {
        const double median = percentile(timing.frame_ms, 0.5);
        std::printf("tinyamp-viz timing: %zu nodes, %zu edges; first frame shown %.0f ms after start; frame time median %.1f ms "
                    "(%.0f fps), 90th percentile %.1f ms over %zu frames\n",
                    graph.nodes.size(), graph.edges.size(), timing.first_frame_ms, median, median > 0 ? 1000.0 / median : 0.0,
                    percentile(timing.frame_ms, 0.9), timing.frame_ms.size());
    }
}

// Opens the window (or the offscreen one), runs the app and, with --script, its checks.
int run_window(CommandLine& line, const PlatformOptions& window, Timing& timing)
{
    Platform platform(window);
    if (!window.headless && platform.video_driver() == "offscreen") {
        std::fprintf(stderr, "tinyamp-viz: no display found (SDL chose its offscreen driver), so there is no window to show.\n"
                             "Run it on a desktop, under Xvfb, or headless with --screenshot out.png.\n");
        return 2;
    }
    VizApp app(line.options, platform.graph_font());
    std::optional<ScriptDriver> driver;
    if (!line.script.empty()) {
        driver = ScriptDriver::load(line.script);
        line.frames = std::max(line.frames, 1);  // the first frame draws the graph: the script starts after it
    }
    run_frames(platform, app, driver ? &*driver : nullptr, line, window.headless, timing);
    if (driver) {
        std::printf("tinyamp-viz: script %s: %d check(s) failed\n", line.script.c_str(), driver->failures());
        if (driver->failures() > 0 || !driver->done()) return 1;
    }
    report(platform, window, app, line, timing);
    return 0;
}

}  // namespace

int main(int argc, char** argv)
{
    Timing timing{Clock::now()};
    CLI::App cli{"tinyamp-viz: the computation graph colored by dtype, stepped forward and backward"};
    CommandLine line;
    const CLI::Option* zoom = add_options(cli, line);
    CLI11_PARSE(cli, argc, argv);
    if (zoom->count() > 0) line.options.zoom = line.zoom;

    if (line.list) {
        for (const std::string& name : Scenario::names()) std::printf("%s\n", name.c_str());
        return 0;
    }
    if (line.print_trace) return print_trace(line.options);
    const std::optional<PlatformOptions> window = window_options(line);
    if (!window) return 2;
    if (window->headless) prefer_offscreen_driver();
    try {
        return run_window(line, *window, timing);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "tinyamp-viz: %s\n", e.what());
        return 1;
    }
}
