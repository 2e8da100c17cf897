#pragma once
// The inspector: everything about one node (viz::inspect), with the log2|x| histogram of its
// values drawn against the ranges of f16 and bf16, and an fp8_linear's casts (scaled_cast_panel.h).
#include "visualizer/app/document.h"
#include "visualizer/model/inspector.h"

namespace tinyamp::viz {

/// `step`: what the live scenario's GradScaler did in the step shown ({} for a trace file).
void draw_inspector(const Document& document, const StepContext& step);

}  // namespace tinyamp::viz
