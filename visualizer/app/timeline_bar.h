#pragma once
// The timeline: step through the trace one event at a time, forward pass then backward pass,
// play/pause, and a scrubber over all events with the forward/backward boundary marked.
// Keys: → step, ← back, space play/pause.
#include "visualizer/app/document.h"

namespace tinyamp::viz {

void draw_timeline(Document& document);

}  // namespace tinyamp::viz
