// Checks a tinyamp-viz screenshot by its pixels, against what the scenario's graph must show:
//   * every dtype that fills a node of the graph appears as that dtype's exact palette color over
//     more pixels than the legend's swatch has (so a node, not just the legend, is filled with it);
//   * a cast node is there: the magenta cast outline covers more pixels than its legend swatch
//     (a scenario without casts must have collectives, whose hexagons the fills above count);
//   * the image is not blank: many colors, none covering nearly all of it.
// The scenario is rebuilt here from its name and seed, independently of the app.
//
//     viz_screenshot_check shot.png --scenario mlp-bf16 [--steps K]
//     viz_screenshot_check shot.png --labels boxes.txt   (check/label_check.h)
#include <stb_image.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <optional>
#include <string>

#include "tinyamp/trace/trace_graph.h"
#include "visualizer/app/colors.h"
#include "visualizer/check/label_check.h"
#include "visualizer/scenarios/scenario.h"

using namespace tinyamp;

namespace {

// More than any legend swatch (18x12 pixels) can cover.
constexpr long kMinPixels = 300;

std::uint32_t rgb_of(const char* hex) { return std::uint32_t(std::strtoul(hex + 1, nullptr, 16)); }

int fail(const std::string& what)
{
    std::fprintf(stderr, "viz_screenshot_check: FAILED: %s\n", what.c_str());
    return 1;
}

// --labels: every node the box file lists has its label (check/label_check.h).
int check_label_boxes(const char* png, const char* boxes)
{
    int width = 0, height = 0, channels = 0;
    unsigned char* pixels = stbi_load(png, &width, &height, &channels, 3);
    if (!pixels) return fail(std::string("cannot read '") + png + "' as an image");
    const int failures = viz::check::check_labels(pixels, width, height, boxes);
    stbi_image_free(pixels);
    if (failures == 0) std::printf("viz_screenshot_check: %s passes: every listed node has its label\n", png);
    return failures == 0 ? 0 : 1;
}

// The image's pixels counted by color (0xrrggbb).
struct ColorCounts {
    std::map<std::uint32_t, long> pixels;
    int width = 0, height = 0;
    long count(std::uint32_t rgb) const { return pixels.count(rgb) ? pixels.at(rgb) : 0L; }
};

std::optional<ColorCounts> count_colors(const std::string& png)
{
    ColorCounts counts;
    int channels = 0;
    unsigned char* pixels = stbi_load(png.c_str(), &counts.width, &counts.height, &channels, 3);
    if (!pixels) return std::nullopt;
    for (long i = 0; i < long(counts.width) * counts.height; ++i) {
        const unsigned char* p = pixels + 3 * i;
        ++counts.pixels[(std::uint32_t(p[0]) << 16) | (std::uint32_t(p[1]) << 8) | p[2]];
    }
    stbi_image_free(pixels);
    return counts;
}

// Each dtype that fills a node covers more pixels than its legend swatch; the dtypes checked.
int check_dtype_fills(const trace::TraceGraph& graph, const ColorCounts& colors, std::size_t& dtypes)
{
    int failures = 0;
    std::map<DType, bool> checked;
    for (const trace::GraphNode& node : graph.nodes) {
        if (!node.has_dtype || checked[node.dtype]) continue;
        checked[node.dtype] = true;
        const char* fill = trace::dtype_color(node.dtype).fill;
        const long n = colors.count(rgb_of(fill));
        std::printf("  %-5s fill %s: %ld pixels\n", dtype_name(node.dtype), fill, n);
        if (n < kMinPixels) failures += fail(std::string("the ") + dtype_name(node.dtype) + " fill " + fill + " covers only " +
                                             std::to_string(n) + " pixels: no node of that dtype was drawn");
    }
    dtypes = checked.size();
    return failures;
}

// A cast node is drawn (its outline covers more than the legend's swatch), and the image is not
// blank: many colors, none covering nearly all of it.
int check_casts_and_colors(const trace::TraceGraph& graph, const ColorCounts& colors, const std::string& scenario_name)
{
    int failures = 0;
    if (graph.has_casts) {
        const long n = colors.count(rgb_of(viz::colors::kCastOutline));
        std::printf("  cast outline %s: %ld pixels\n", viz::colors::kCastOutline, n);
        if (n < kMinPixels) failures += fail("no cast node: the cast outline covers only " + std::to_string(n) + " pixels");
    } else if (!graph.has_collectives) {
        failures += fail("scenario '" + scenario_name + "' has neither a cast nor a collective in its graph; pick one under autocast, or ddp-bf16");
    }
    // A collective's hexagon is filled with the dtype its data travelled in: checked with the fills above.
    if (graph.has_collectives) std::printf("  collectives: drawn in the fills above\n");
    long most = 0;
    for (const auto& [rgb, n] : colors.pixels) most = std::max(most, n);
    const double share = double(most) / (double(colors.width) * colors.height);
    std::printf("  %zu colors; the most common covers %.1f%% of %dx%d\n", colors.pixels.size(), 100 * share, colors.width, colors.height);
    if (colors.pixels.size() < 16 || share > 0.9) failures += fail("the image is (nearly) blank");
    return failures;
}

// --scenario: the screenshot shows the scenario's dtypes and casts (rebuilt here from its name).
int check_scenario(const std::string& png, const std::string& scenario_name, long steps)
{
    const std::optional<ColorCounts> colors = count_colors(png);
    if (!colors) return fail("cannot read '" + png + "' as an image: " + (stbi_failure_reason() ? stbi_failure_reason() : "?"));
    viz::Scenario scenario(viz::Scenario::preset(scenario_name));
    if (steps > 0) scenario.step(steps);
    const trace::TraceGraph graph = trace::build_graph(scenario.trace());
    std::size_t dtypes = 0;
    int failures = check_dtype_fills(graph, *colors, dtypes);
    failures += check_casts_and_colors(graph, *colors, scenario_name);
    if (failures == 0)
        std::printf("viz_screenshot_check: %s passes (%zu dtypes, %s present)\n", png.c_str(), dtypes, graph.has_casts ? "casts" : "collectives");
    return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc < 4 || (std::string(argv[2]) != "--scenario" && std::string(argv[2]) != "--labels")) {
        std::fprintf(stderr, "usage: viz_screenshot_check SHOT.png --scenario NAME [--steps K]\n"
                             "       viz_screenshot_check SHOT.png --labels BOXES\n");
        return 2;
    }
    try {
        if (std::string(argv[2]) == "--labels") return check_label_boxes(argv[1], argv[3]);
        const long steps = argc >= 6 && std::string(argv[4]) == "--steps" ? std::atol(argv[5]) : 0;
        return check_scenario(argv[1], argv[3], steps);
    } catch (const std::exception& e) {
        return fail(e.what());
    }
}
