// The dtype palette: fixed fills, and a text color readable on each.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include <tinyamp/tinyamp.h>
#include <tinyamp/trace/trace.h>

using namespace tinyamp;

namespace {

// WCAG 2 relative luminance and contrast ratio, written out here to check the palette's choice.
double luminance(const std::string& hex)
{
    double sum = 0;
    const double weights[3] = {0.2126, 0.7152, 0.0722};
    for (int i = 0; i < 3; ++i) {
        const double c = std::stoi(hex.substr(1 + 2 * std::size_t(i), 2), nullptr, 16) / 255.0;
        sum += weights[i] * (c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4));
    }
    return sum;
}

double contrast(const std::string& a, const std::string& b)
{
    const double la = luminance(a), lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

}  // namespace

TEST_CASE("dtype_color gives each dtype its fixed fill")
{
    CHECK(std::string(trace::dtype_color(f32).fill) == "#3c78dc");
    CHECK(std::string(trace::dtype_color(f16).fill) == "#2ca02c");
    CHECK(std::string(trace::dtype_color(bf16).fill) == "#ff7f0e");
    CHECK(std::string(trace::dtype_color(f64).fill) == "#8e44ad");
    CHECK(std::string(trace::dtype_color(i64).fill) == "#7f7f7f");
    CHECK(std::string(trace::dtype_color(boolean).fill) == "#bcbd22");
    std::set<std::string> fills;
    for (DType d : kAllDTypes) fills.insert(trace::dtype_color(d).fill);
    CHECK(fills.size() == kAllDTypes.size());
}

TEST_CASE("dtype_color picks white or dark text, whichever contrasts more with the fill")
{
    for (DType d : kAllDTypes) {
        const trace::DTypeColor color = trace::dtype_color(d);
        const std::string fill = color.fill, text = color.text;
        const std::string other = text == "#ffffff" ? "#1a1a1a" : "#ffffff";
        INFO(std::string(dtype_name(d)) << " fill " << fill << " text " << text);
        CHECK((text == "#ffffff" || text == "#1a1a1a"));
        CHECK(contrast(fill, text) >= contrast(fill, other));
        CHECK(contrast(fill, text) >= 3.0);  // WCAG AA for large text and graphics
    }
    CHECK(std::string(trace::dtype_color(f64).text) == "#ffffff");   // dark purple
    CHECK(std::string(trace::dtype_color(bf16).text) == "#1a1a1a");  // bright orange
}
