// Checks a tinyamp-viz screenshot by its pixels, against what the scenario's graph must show:
//   * every dtype that fills a node of the graph appears as that dtype's exact palette color over
//     more pixels than the legend's swatch has (so a node, not just the legend, is filled with it);
//   * a cast node is there: the magenta cast outline covers more pixels than its legend swatch;
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

}  // namespace

int main(int argc, char** argv)
{
    if (argc < 4 || (std::string(argv[2]) != "--scenario" && std::string(argv[2]) != "--labels")) {
        std::fprintf(stderr, "usage: viz_screenshot_check SHOT.png --scenario NAME [--steps K]\n"
                             "       viz_screenshot_check SHOT.png --labels BOXES\n");
        return 2;
    }
    if (std::string(argv[2]) == "--labels") {
        try {
            int width = 0, height = 0, channels = 0;
            unsigned char* pixels = stbi_load(argv[1], &width, &height, &channels, 3);
            if (!pixels) return fail(std::string("cannot read '") + argv[1] + "' as an image");
            const int failures = viz::check::check_labels(pixels, width, height, argv[3]);
            stbi_image_free(pixels);
            if (failures == 0) std::printf("viz_screenshot_check: %s passes: every listed node has its label\n", argv[1]);
            return failures == 0 ? 0 : 1;
        } catch (const std::exception& e) {
            return fail(e.what());
        }
    }
    const std::string png = argv[1], scenario_name = argv[3];
    const long steps = argc >= 6 && std::string(argv[4]) == "--steps" ? std::atol(argv[5]) : 0;
    try {
        int width = 0, height = 0, channels = 0;
        unsigned char* pixels = stbi_load(png.c_str(), &width, &height, &channels, 3);
        if (!pixels) return fail("cannot read '" + png + "' as an image: " + (stbi_failure_reason() ? stbi_failure_reason() : "?"));
        std::map<std::uint32_t, long> histogram;
        for (long i = 0; i < long(width) * height; ++i) {
            const unsigned char* p = pixels + 3 * i;
            ++histogram[(std::uint32_t(p[0]) << 16) | (std::uint32_t(p[1]) << 8) | p[2]];
        }
        stbi_image_free(pixels);
        auto count = [&](std::uint32_t rgb) { return histogram.count(rgb) ? histogram.at(rgb) : 0L; };

        viz::Scenario scenario(viz::Scenario::preset(scenario_name));
        if (steps > 0) scenario.step(steps);
        const trace::TraceGraph graph = trace::build_graph(scenario.trace());

        int failures = 0;
        std::map<DType, bool> checked;
        for (const trace::GraphNode& node : graph.nodes) {
            if (!node.has_dtype || checked[node.dtype]) continue;
            checked[node.dtype] = true;
            const char* fill = trace::dtype_color(node.dtype).fill;
            const long n = count(rgb_of(fill));
            std::printf("  %-5s fill %s: %ld pixels\n", dtype_name(node.dtype), fill, n);
            if (n < kMinPixels) failures += fail(std::string("the ") + dtype_name(node.dtype) + " fill " + fill + " covers only " +
                                                 std::to_string(n) + " pixels: no node of that dtype was drawn");
        }
        if (graph.has_casts) {
            const long n = count(rgb_of(viz::colors::kCastOutline));
            std::printf("  cast outline %s: %ld pixels\n", viz::colors::kCastOutline, n);
            if (n < kMinPixels) failures += fail("no cast node: the cast outline covers only " + std::to_string(n) + " pixels");
        } else {
            failures += fail("scenario '" + scenario_name + "' has no cast in its graph; pick one under autocast");
        }
        long most = 0;
        for (const auto& [rgb, n] : histogram) most = std::max(most, n);
        const double share = double(most) / (double(width) * height);
        std::printf("  %zu colors; the most common covers %.1f%% of %dx%d\n", histogram.size(), 100 * share, width, height);
        if (histogram.size() < 16 || share > 0.9) failures += fail("the image is (nearly) blank");
        if (failures == 0) std::printf("viz_screenshot_check: %s passes (%zu dtypes, casts present)\n", png.c_str(), checked.size());
        return failures == 0 ? 0 : 1;
    } catch (const std::exception& e) {
        return fail(e.what());
    }
}
