#pragma once
// The inspector's FP8/FP4 section: for an op that cast inside (fp8_linear), one collapsible
// section per cast (model/scaled_cast_view.h): role, format, recipe, amax, scale and its log2,
// saturated and flushed shares, the amax history as a line plot, the histogram of
// log2|x * scale| against the format's range, and for MX the block scales as a strip.
#include <vector>

#include "tinyamp/trace/event.h"

namespace tinyamp::viz {

/// Draws the casts' sections (nothing when `casts` is empty).
void draw_scaled_casts(const std::vector<trace::ScaledCast>& casts);

}  // namespace tinyamp::viz
