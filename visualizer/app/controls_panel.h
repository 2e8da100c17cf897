#pragma once
// The knobs of a live scenario (autocast on/off, f16/bf16, the CPU or CUDA policy table, the
// cast cache, the GradScaler's options, the model) and the editable policy table. Each draw
// function edits a copy of the options and says whether the user changed something; the app
// then restarts the scenario with them.
#include <cstdint>

#include "visualizer/scenarios/scenario.h"

namespace tinyamp::viz {

struct TrainingActions {
    std::int64_t steps = 0;  ///< run this many steps now
    bool toggle_run = false; ///< start/stop running a step every frame
    bool restart = false;    ///< start over with the same options
};

/// Returns true when `options` changed.
bool draw_scenario_controls(ScenarioOptions& options, bool running, TrainingActions& actions);

/// The policy table: one row per op the table lists or the trace ran, with a combo to move it
/// to another policy (or out of the table). Returns true when `options.table` changed.
bool draw_policy_table(ScenarioOptions& options, const trace::Trace& trace);

}  // namespace tinyamp::viz
