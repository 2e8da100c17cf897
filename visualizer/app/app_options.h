#pragma once
// What the visualizer opens on, from tinyamp-viz's command line or the web page's address.
#include <cstdint>
#include <optional>
#include <string>

namespace tinyamp::viz {

struct AppOptions {
    std::string scenario = "mlp-bf16";  ///< a Scenario::names() preset
    std::string trace_path;             ///< when set, show this trace JSON instead of a scenario
    std::int64_t steps = 0;             ///< training steps to run before the first frame
    /// The timeline: "end", "start", "backward" or a number of events; "" for the scenario's
    /// opening (Scenario::opening; "end" for a trace file).
    std::string position;
    /// A node to inspect: "e12", an op name, "backward:OP", ...; "" for the scenario's opening,
    /// "none" for no node (the inspector follows the timeline).
    std::string select;
    std::string tab = "scenario";       ///< the left panel's tab: scenario, policy, file
    std::optional<double> zoom;         ///< when set, the first view is centred on the inspected node, its zoom times this
    bool record_drawn = false;          ///< keep each frame's node boxes (camera().drawn) for --node-boxes
};

/// The UI scales --ui-scale and the page's ui-scale= accept (1: 15 px text; 2 for a HiDPI screen).
inline constexpr double kMinUiScale = 0.75, kMaxUiScale = 3.0;
inline bool valid_ui_scale(double scale) { return scale >= kMinUiScale && scale <= kMaxUiScale; }

}  // namespace tinyamp::viz
