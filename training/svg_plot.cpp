#include "training/svg_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace tinyamp::plot {
namespace {

// A white outline behind a mark's label keeps it readable where it crosses bars or lines.
const char* const kHalo = "paint-order=\"stroke\" stroke=\"white\" stroke-width=\"3\"";

const char* const kPalette[] = {"#3c78dc", "#e8862a", "#2a9d5c", "#b04bc9", "#d64545", "#6b6b6b"};

std::string number(double v)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.4g", v);
    return buffer;
}

// The plotting area and the mapping from data to pixels.
struct Frame {
    double x0, x1, y0, y1;          // data range
    double x_step, y_step;          // tick spacing
    double left, right, top, bottom;  // pixel box
    double px(double x) const { return left + (x - x0) / (x1 - x0) * (right - left); }
    double py(double y) const { return bottom - (y - y0) / (y1 - y0) * (bottom - top); }
};

void widen_if_flat(double& lo, double& hi)
{
    if (!(hi > lo)) {
        const double pad = lo == 0 ? 1 : std::abs(lo) * 0.1;
        lo -= pad;
        hi += pad;
    }
}

// A "nice" tick step (1, 2 or 5 times a power of ten) giving about 5 ticks over [lo, hi]; the range
// is widened to whole steps so the ticks sit on the frame. `whole` keeps steps >= 1 (log axes: powers of 10).
double nice_ticks(double& lo, double& hi, bool whole)
{
    widen_if_flat(lo, hi);
    const double raw = (hi - lo) / 5;
    const double power = std::pow(10.0, std::floor(std::log10(raw)));
    double step = power * (raw / power <= 1 ? 1 : raw / power <= 2 ? 2 : raw / power <= 5 ? 5 : 10);
    if (whole) step = std::max(1.0, std::ceil(step));
    lo = std::floor(lo / step) * step;
    hi = std::ceil(hi / step) * step;
    return step;
}

void header(std::ostringstream& svg, int width, int height, const std::string& title)
{
    svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
        << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
        << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        << "<text x=\"" << width / 2 << "\" y=\"20\" text-anchor=\"middle\" font-size=\"15\">" << escape_xml(title) << "</text>\n";
}

// Axes with 5 ticks each; `y_label_of` turns a y coordinate into its printed label (log axes print 10^k).
template <typename YLabel>
void axes(std::ostringstream& svg, const Frame& f, const std::string& x_label, const std::string& y_label, YLabel y_label_of)
{
    svg << "<rect x=\"" << f.left << "\" y=\"" << f.top << "\" width=\"" << f.right - f.left << "\" height=\"" << f.bottom - f.top
        << "\" fill=\"none\" stroke=\"#444\"/>\n";
    for (double x = f.x0; x <= f.x1 + f.x_step / 2; x += f.x_step)
        svg << "<text x=\"" << f.px(x) << "\" y=\"" << f.bottom + 16 << "\" text-anchor=\"middle\">" << number(x) << "</text>\n";
    for (double y = f.y0; y <= f.y1 + f.y_step / 2; y += f.y_step)
        svg << "<text x=\"" << f.left - 6 << "\" y=\"" << f.py(y) + 4 << "\" text-anchor=\"end\">" << y_label_of(y) << "</text>\n"
            << "<line x1=\"" << f.left << "\" x2=\"" << f.right << "\" y1=\"" << f.py(y) << "\" y2=\"" << f.py(y)
            << "\" stroke=\"#eee\"/>\n";
    svg << "<text x=\"" << (f.left + f.right) / 2 << "\" y=\"" << f.bottom + 34 << "\" text-anchor=\"middle\">" << escape_xml(x_label)
        << "</text>\n"
        << "<text transform=\"translate(16," << (f.top + f.bottom) / 2 << ") rotate(-90)\" text-anchor=\"middle\">"
        << escape_xml(y_label) << "</text>\n";
}

void vertical_marks(std::ostringstream& svg, const Frame& f, const std::vector<Mark>& marks)
{
    for (const Mark& m : marks) {
        if (m.at < f.x0 || m.at > f.x1) continue;
        svg << "<line x1=\"" << f.px(m.at) << "\" x2=\"" << f.px(m.at) << "\" y1=\"" << f.top << "\" y2=\"" << f.bottom
            << "\" stroke=\"" << m.color << "\" stroke-dasharray=\"5,3\"/>\n"
            << "<text x=\"" << f.px(m.at) + 3 << "\" y=\"" << f.top + 12 << "\" " << kHalo << " fill=\"" << m.color
            << "\" transform=\"rotate(90," << f.px(m.at) + 3 << "," << f.top + 12 << ")\">" << escape_xml(m.label) << "</text>\n";
    }
}

}  // namespace

std::string escape_xml(const std::string& text)
{
    std::string out;
    for (char c : text) {
        if (c == '<') out += "&lt;";
        else if (c == '>') out += "&gt;";
        else if (c == '&') out += "&amp;";
        else if (c == '"') out += "&quot;";
        else out += c;
    }
    return out;
}

Histogram make_histogram(const std::vector<double>& values, double lo, double hi, int bins)
{
    if (bins < 1 || !(hi > lo)) throw std::invalid_argument("make_histogram: need bins >= 1 and hi > lo");
    Histogram h;
    for (int i = 0; i <= bins; ++i) h.edges.push_back(lo + (hi - lo) * i / bins);
    h.counts.assign(static_cast<std::size_t>(bins), 0.0);
    for (double v : values) {
        if (std::isnan(v)) continue;
        const double t = (v - lo) / (hi - lo) * bins;
        const int bin = std::clamp(static_cast<int>(std::floor(t)), 0, bins - 1);
        h.counts[static_cast<std::size_t>(bin)] += 1;
    }
    return h;
}

std::string render_svg(const LinePlot& plot, int width, int height)
{
    if (plot.series.empty()) throw std::invalid_argument("render_svg: the plot '" + plot.title + "' has no series");
    auto y_of = [&](double y) { return plot.log_y ? std::log10(y) : y; };
    double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
    for (const Series& s : plot.series) {
        if (s.x.size() != s.y.size())
            throw std::invalid_argument("render_svg: series '" + s.label + "' has " + std::to_string(s.x.size()) + " x values but " +
                                        std::to_string(s.y.size()) + " y values");
        for (std::size_t i = 0; i < s.x.size(); ++i) {
            if (!std::isfinite(s.y[i]) || (plot.log_y && s.y[i] <= 0)) continue;
            x0 = std::min(x0, s.x[i]), x1 = std::max(x1, s.x[i]);
            y0 = std::min(y0, y_of(s.y[i])), y1 = std::max(y1, y_of(s.y[i]));
        }
    }
    for (const Mark& m : plot.y_marks)
        if (!plot.log_y || m.at > 0) y0 = std::min(y0, y_of(m.at)), y1 = std::max(y1, y_of(m.at));
    if (!std::isfinite(x0)) x0 = 0, x1 = 1, y0 = 0, y1 = 1;  // nothing finite to draw: an empty frame
    const double x_step = nice_ticks(x0, x1, false);
    const double y_step = nice_ticks(y0, y1, plot.log_y);
    const Frame f{x0, x1, y0, y1, x_step, y_step, 70.0, width - 20.0, 36.0, height - 60.0};

    std::ostringstream svg;
    header(svg, width, height, plot.title);
    axes(svg, f, plot.x_label, plot.y_label, [&](double y) { return plot.log_y ? "1e" + number(std::round(y)) : number(y); });
    vertical_marks(svg, f, plot.x_marks);
    for (const Mark& m : plot.y_marks) {
        if (plot.log_y && m.at <= 0) continue;
        const double y = f.py(y_of(m.at));
        svg << "<line x1=\"" << f.left << "\" x2=\"" << f.right << "\" y1=\"" << y << "\" y2=\"" << y << "\" stroke=\"" << m.color
            << "\" stroke-dasharray=\"5,3\"/>\n"
            << "<text x=\"" << f.right - 4 << "\" y=\"" << y - 4 << "\" text-anchor=\"end\" " << kHalo << " fill=\"" << m.color << "\">"
            << escape_xml(m.label) << "</text>\n";
    }
    int index = 0;
    for (const Series& s : plot.series) {
        const std::string color = s.color.empty() ? kPalette[index % 6] : s.color;
        svg << "<polyline fill=\"none\" stroke=\"" << color << "\" stroke-width=\"2\" points=\"";
        for (std::size_t i = 0; i < s.x.size(); ++i)
            if (std::isfinite(s.y[i]) && (!plot.log_y || s.y[i] > 0)) svg << f.px(s.x[i]) << ',' << f.py(y_of(s.y[i])) << ' ';
        svg << "\"/>\n";
        if (s.dots)
            for (std::size_t i = 0; i < s.x.size(); ++i)
                if (std::isfinite(s.y[i]) && (!plot.log_y || s.y[i] > 0))
                    svg << "<circle cx=\"" << f.px(s.x[i]) << "\" cy=\"" << f.py(y_of(s.y[i])) << "\" r=\"3\" fill=\"" << color << "\"/>\n";
        svg << "<rect x=\"" << f.left + 10 << "\" y=\"" << f.top + 8 + 18 * index << "\" width=\"12\" height=\"12\" fill=\"" << color
            << "\"/><text x=\"" << f.left + 28 << "\" y=\"" << f.top + 18 + 18 * index << "\">" << escape_xml(s.label) << "</text>\n";
        ++index;
    }
    svg << "</svg>\n";
    return svg.str();
}

std::string render_svg(const Histogram& plot, int width, int height)
{
    if (plot.counts.empty() || plot.edges.size() != plot.counts.size() + 1)
        throw std::invalid_argument("render_svg: histogram '" + plot.title + "' needs counts.size() + 1 edges (has " +
                                    std::to_string(plot.edges.size()) + " edges for " + std::to_string(plot.counts.size()) + " counts)");
    double x0 = plot.edges.front(), x1 = plot.edges.back(), y0 = 0, y1 = std::max(1.0, *std::max_element(plot.counts.begin(), plot.counts.end()));
    const double x_step = nice_ticks(x0, x1, false);
    const double y_step = nice_ticks(y0, y1, true);
    const Frame f{x0, x1, y0, y1, x_step, y_step, 70.0, width - 20.0, 36.0, height - 60.0};
    std::ostringstream svg;
    header(svg, width, height, plot.title);
    axes(svg, f, plot.x_label, "count", [](double y) { return number(std::round(y)); });
    for (std::size_t i = 0; i < plot.counts.size(); ++i) {
        if (plot.counts[i] <= 0) continue;
        const double x = f.px(plot.edges[i]), w = f.px(plot.edges[i + 1]) - x, y = f.py(plot.counts[i]);
        svg << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << std::max(1.0, w - 1) << "\" height=\"" << f.bottom - y
            << "\" fill=\"" << plot.color << "\"/>\n";
    }
    vertical_marks(svg, f, plot.x_marks);
    svg << "</svg>\n";
    return svg.str();
}

}  // namespace tinyamp::plot
