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
    std::string position = "end";       ///< the timeline: "end", "start", "backward" or a number of events
    std::string select;                 ///< a node to inspect: "e12", an op name, or "backward:OP"
    std::string tab = "scenario";       ///< the left panel's tab: scenario, policy, file
    std::optional<double> zoom;         ///< when set, the first view is centred on the inspected node, its zoom times this
    bool record_drawn = false;          ///< keep each frame's node boxes (camera().drawn) for --node-boxes
};

}  // namespace tinyamp::viz
