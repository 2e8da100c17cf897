#pragma once
// The GUI's colors. Node fills come from the one dtype palette (trace::dtype_color), the same as
// the DOT export and the docs; the few marks that are not dtypes (casts, the current node, the
// selection) have colors of their own that no dtype uses, so a test can find them in a screenshot.
#include <imgui.h>

#include "tinyamp/values/dtype.h"

namespace tinyamp::viz {

ImU32 hex_color(const char* hex, int alpha = 255);  ///< "#rrggbb" -> ImU32
ImU32 dtype_fill(DType dtype, int alpha = 255);
ImU32 dtype_text(DType dtype, int alpha = 255);

namespace colors {
inline constexpr const char* kCastOutline = "#ff2bd6";  ///< magenta: autocast's casts
inline constexpr const char* kParameter = "#ffd400";    ///< gold: leaf weights (parameters)
inline constexpr const char* kCurrent = "#ffffff";      ///< the timeline's current event
inline constexpr const char* kSelected = "#00e5ff";     ///< the node the inspector shows
inline constexpr const char* kCanvas = "#1e1f24";       ///< the graph's background
}  // namespace colors

}  // namespace tinyamp::viz
