// The dtype palette: fixed fills, and a text color readable on each.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <utility>
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

// An sRGB colour as linear RGB, then as CIELAB (D65 white), where a distance of about 2 is just
// noticeable and 20 is plainly a different colour.
std::array<double, 3> linear_rgb(const std::string& hex)
{
    std::array<double, 3> c{};
    for (int i = 0; i < 3; ++i) {
        const double v = std::stoi(hex.substr(1 + 2 * std::size_t(i), 2), nullptr, 16) / 255.0;
        c[std::size_t(i)] = v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
    }
    return c;
}

std::array<double, 3> lab(const std::array<double, 3>& rgb)
{
    const double x = (0.4124 * rgb[0] + 0.3576 * rgb[1] + 0.1805 * rgb[2]) / 0.95047;
    const double y = 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2];
    const double z = (0.0193 * rgb[0] + 0.1192 * rgb[1] + 0.9505 * rgb[2]) / 1.08883;
    auto f = [](double t) { return t > 0.008856 ? std::cbrt(t) : 7.787 * t + 16.0 / 116.0; };
    return {116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))};
}

// How a colour looks with no working L or M cones: Machado, Oliveira and Fernandes (2009),
// severity 1.0, applied to linear RGB.
using Matrix = std::array<std::array<double, 3>, 3>;
constexpr Matrix kNormal{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
constexpr Matrix kDeuteranopia{{{0.367322, 0.860646, -0.227968}, {0.280085, 0.672501, 0.047413}, {-0.011820, 0.042940, 0.968881}}};
constexpr Matrix kProtanopia{{{0.152286, 1.052583, -0.204868}, {0.114503, 0.786281, 0.099216}, {-0.003882, -0.048116, 1.051998}}};

std::array<double, 3> seen(const std::string& hex, const Matrix& m)
{
    const std::array<double, 3> c = linear_rgb(hex);
    std::array<double, 3> out{};
    for (std::size_t i = 0; i < 3; ++i) out[i] = std::clamp(m[i][0] * c[0] + m[i][1] * c[1] + m[i][2] * c[2], 0.0, 1.0);
    return lab(out);
}

double distance(const std::array<double, 3>& a, const std::array<double, 3>& b)
{
    return std::sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

}  // namespace

TEST_CASE("the dtype fills stay apart for normal vision and with deuteranopia or protanopia")
{
    // The simulation is the check's own: the old f16 green and bf16 orange fall 4.6 apart for a
    // protanope, which this test refuses.
    CHECK(distance(seen("#2ca02c", kProtanopia), seen("#ff7f0e", kProtanopia)) < 5.0);
    const std::pair<const char*, const Matrix*> visions[] = {{"normal", &kNormal}, {"deuteranopia", &kDeuteranopia}, {"protanopia", &kProtanopia}};
    for (const auto& [vision, matrix] : visions)
        for (DType a : kAllDTypes)
            for (DType b : kAllDTypes) {
                if (a >= b) continue;
                const double d = distance(seen(trace::dtype_color(a).fill, *matrix), seen(trace::dtype_color(b).fill, *matrix));
                INFO(vision << ": " << dtype_name(a) << " " << trace::dtype_color(a).fill << " against " << dtype_name(b) << " "
                            << trace::dtype_color(b).fill << " are " << d << " apart");
                CHECK(d >= 20.0);
            }
}

TEST_CASE("dtype_color gives each dtype its fixed fill")
{
    CHECK(std::string(trace::dtype_color(f32).fill) == "#3c78dc");
    CHECK(std::string(trace::dtype_color(f16).fill) == "#009e73");
    CHECK(std::string(trace::dtype_color(bf16).fill) == "#ff7f0e");
    CHECK(std::string(trace::dtype_color(f64).fill) == "#882255");
    CHECK(std::string(trace::dtype_color(i64).fill) == "#bbbbbb");
    CHECK(std::string(trace::dtype_color(boolean).fill) == "#ddcc77");
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
    CHECK(std::string(trace::dtype_color(f64).text) == "#ffffff");   // dark wine
    CHECK(std::string(trace::dtype_color(bf16).text) == "#1a1a1a");  // bright orange
}
