#pragma once
// Two small chart kinds drawn as self-contained SVG text, enough for the lessons' pictures and
// tinyamp-train's curves: line plots (loss curves, the loss scale over steps) and histograms
// (log2|x| of a gradient, with the f16/bf16 limits drawn as marks). No dependency beyond the
// standard library.
#include <string>
#include <vector>

namespace tinyamp::plot {

struct Series {
    std::string label;
    std::vector<double> x;
    std::vector<double> y;
    std::string color;        ///< "#rrggbb"; empty picks the next of a fixed palette
    bool dots = false;        ///< draw a dot at each point as well as the line
};

/// A vertical (at x) or horizontal (at y) reference line with a label, e.g. "f16 max 65504".
struct Mark {
    double at = 0;
    std::string label;
    std::string color = "#888888";
};

struct LinePlot {
    std::string title;
    std::string x_label;
    std::string y_label;
    bool log_y = false;       ///< log10 axis; points with y <= 0 are left out
    std::vector<Series> series;
    std::vector<Mark> x_marks;
    std::vector<Mark> y_marks;
};

struct Histogram {
    std::string title;
    std::string x_label;
    std::vector<double> edges;   ///< bins: [edges[i], edges[i+1]), so edges.size() == counts.size() + 1
    std::vector<double> counts;
    std::string color = "#3c78dc";
    std::vector<Mark> x_marks;
};

/// Builds a histogram of `values` over `bins` equal bins between lo and hi (values outside are
/// counted in the first or last bin).
Histogram make_histogram(const std::vector<double>& values, double lo, double hi, int bins);

/// `text` with <, >, & and " written as XML entities (for SVG and HTML).
std::string escape_xml(const std::string& text);

/// The SVG text (width x height pixels). Throws std::invalid_argument naming the problem when the
/// data cannot be drawn (no series, x/y of different lengths, edges/counts mismatch).
std::string render_svg(const LinePlot& plot, int width = 640, int height = 400);
std::string render_svg(const Histogram& plot, int width = 640, int height = 400);

}  // namespace tinyamp::plot
