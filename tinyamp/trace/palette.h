#pragma once
/// \file
/// The colors of dtypes, one palette for the GUI, the DOT export and the docs.

#include "tinyamp/values/dtype.h"

namespace tinyamp::trace {

/// The one palette for dtypes (GUI, DOT, docs): "#rrggbb" fill and a readable text color.
struct DTypeColor {
    const char* fill;  ///< the dtype's fill, "#rrggbb" (f32 blue, f16 bluish green, bf16 orange, ...), told apart with colour blindness too
    const char* text;  ///< white or near-black, whichever contrasts more with the fill (WCAG)
};
/// The fill and text colors of `dtype`, the same everywhere a dtype is drawn.
DTypeColor dtype_color(DType dtype);

}  // namespace tinyamp::trace
