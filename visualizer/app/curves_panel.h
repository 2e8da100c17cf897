#pragma once
// The training curves of a live scenario: the loss per step, and the GradScaler's loss scale
// per step on a log2 axis with the skipped steps (inf/NaN gradients) marked in red.
#include <vector>

#include "visualizer/scenarios/scenario.h"

namespace tinyamp::viz {

void draw_curves(const std::vector<StepRecord>& history, float height_each);

}  // namespace tinyamp::viz
