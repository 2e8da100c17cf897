// The one dtype palette (GUI, DOT, docs). The fills are fixed; the text color on each fill is
// chosen by the WCAG contrast rule, so changing a fill never leaves unreadable labels.
#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>

#include "tinyamp/trace/palette.h"

namespace tinyamp::trace {
namespace {

constexpr const char* kLightText = "#ffffff";
constexpr const char* kDarkText = "#1a1a1a";

// Chosen so that every pair stays apart (CIELAB distance at least 20) for normal vision and under
// simulated deuteranopia and protanopia (tests/trace/palette_test.cpp), the colour blindness of
// about one man in twelve: f16 and bf16, the pair this project is about, must never look alike.
// f16's bluish green is Okabe and Ito's; the green it replaced looked like bf16's orange to a
// protanope.
const char* fill_of(DType dtype)
{
    switch (dtype) {
    case DType::f32: return "#3c78dc";      // blue: the default, full precision
    case DType::f16: return "#009e73";      // bluish green
    case DType::bf16: return "#ff7f0e";     // orange
    case DType::f64: return "#882255";      // wine
    case DType::i64: return "#bbbbbb";      // light gray: labels, indices
    case DType::boolean: return "#ddcc77";  // sand: masks
    // The FP8/FP4 storage dtypes, found by a search over colours that keep every pair of the ten
    // apart under the three visions (min distance 23.7): warm reds for the two FP8 element
    // formats, near black for the E8M0 scale, pink for FP4.
    case DType::f8e4m3fn: return "#d72a24";  // red: forward FP8
    case DType::f8e5m2: return "#641771";    // dark purple: gradient FP8
    case DType::e8m0: return "#251f10";      // near black: MX block scales
    case DType::f4e2m1x2: return "#e489da";  // pink: FP4 pairs
    }
    return "#7f7f7f";  // unreachable: every enumerator is handled above
}

// Relative luminance of "#rrggbb" (WCAG 2): each channel linearized from sRGB, then weighted by
// how bright the eye sees it.
double luminance(std::string_view hex)
{
    auto channel = [&](std::size_t at) {
        const double c = std::stoi(std::string(hex.substr(at, 2)), nullptr, 16) / 255.0;
        return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

// WCAG contrast ratio, from 1 (none) to 21 (black on white).
double contrast(std::string_view a, std::string_view b)
{
    const double la = luminance(a), lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

}  // namespace

DTypeColor dtype_color(DType dtype)
{
    const char* fill = fill_of(dtype);
    const char* text = contrast(fill, kLightText) >= contrast(fill, kDarkText) ? kLightText : kDarkText;
    return {fill, text};
}

}  // namespace tinyamp::trace
