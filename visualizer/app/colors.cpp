#include "visualizer/app/colors.h"

#include <cstdlib>
#include <string>

#include "tinyamp/trace/palette.h"

namespace tinyamp::viz {

ImU32 hex_color(const char* hex, int alpha)
{
    const unsigned long rgb = std::strtoul(hex + 1, nullptr, 16);  // skip '#'
    return IM_COL32(int((rgb >> 16) & 0xff), int((rgb >> 8) & 0xff), int(rgb & 0xff), alpha);
}

ImU32 dtype_fill(DType dtype, int alpha) { return hex_color(trace::dtype_color(dtype).fill, alpha); }
ImU32 dtype_text(DType dtype, int alpha) { return hex_color(trace::dtype_color(dtype).text, alpha); }

}  // namespace tinyamp::viz
