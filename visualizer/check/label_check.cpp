#include "visualizer/check/label_check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace tinyamp::viz::check {
namespace {

struct Box {
    float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    bool overlaps(const Box& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
    bool holds(float x, float y) const { return x >= x0 && x < x1 && y >= y0 && y < y1; }
};

struct NodeLine {
    std::string name, kind;
    Box box, marks;
    unsigned fill = 0;  // 0xrrggbb
    float outline = 0, round = 0;
};

Box read_box(std::istream& in)
{
    Box b;
    in >> b.x0 >> b.y0 >> b.x1 >> b.y1;
    return b;
}

// Reads the word `key`, then what follows it.
void expect(std::istream& in, const char* key, int line)
{
    std::string word;
    if (!(in >> word) || word != key)
        throw std::runtime_error("box file line " + std::to_string(line) + ": expected '" + key + "', found '" + word + "'");
}

// The part of the box the fill surely covers, inside the outline.
Box fill_area(const NodeLine& n)
{
    Box a = n.box;
    const float w = a.x1 - a.x0, h = a.y1 - a.y0;
    if (n.kind == "op") {  // rounded corners cut about 0.3 of the radius in
        const float cut = 0.3f * n.round;
        a = {a.x0 + cut, a.y0 + cut, a.x1 - cut, a.y1 - cut};
    } else if (n.kind == "cast") {  // the tag's pointed end is half its height long
        a.x1 -= h / 2;
    } else if (n.kind == "module") {  // a folded module: the box is its front face
    } else if (n.kind == "collective") {  // a hexagon: 0.3 of the height about the middle, 0.35 of the width is inside
        const float cx = (a.x0 + a.x1) / 2, cy = (a.y0 + a.y1) / 2;
        a = {cx - 0.35f * w, cy - 0.3f * h, cx + 0.35f * w, cy + 0.3f * h};
    } else {  // an ellipse: its inscribed rectangle
        const float cx = (a.x0 + a.x1) / 2, cy = (a.y0 + a.y1) / 2, hw = w / 2 / std::sqrt(2.0f), hh = h / 2 / std::sqrt(2.0f);
        a = {cx - hw, cy - hh, cx + hw, cy + hh};
    }
    const float in = n.outline + 1;  // the outline and its anti-aliased edge
    return {a.x0 + in, a.y0 + in, a.x1 - in, a.y1 - in};
}

int channel_distance(const unsigned char* p, unsigned rgb)
{
    return std::max({std::abs(int(p[0]) - int((rgb >> 16) & 0xff)), std::abs(int(p[1]) - int((rgb >> 8) & 0xff)),
                     std::abs(int(p[2]) - int(rgb & 0xff))});
}

int fail(const std::string& what)
{
    std::printf("viz_screenshot_check: FAILED: %s\n", what.c_str());
    return 1;
}

// What a box file (app/node_boxes.h) lists.
struct BoxFile {
    std::vector<NodeLine> nodes;
    std::vector<std::pair<std::string, Box>> overlays;  // the legend, the minimap
    std::string inspected;                               // the node the inspector shows, "" for none
};

// A "node" line after its first word: NAME KIND BOX fill #RRGGBB outline W round R marks BOX.
NodeLine read_node(std::istream& in, int number)
{
    NodeLine n;
    std::string fill;
    in >> n.name >> n.kind;
    n.box = read_box(in);
    expect(in, "fill", number);
    in >> fill;
    expect(in, "outline", number);
    in >> n.outline;
    expect(in, "round", number);
    in >> n.round;
    expect(in, "marks", number);
    n.marks = read_box(in);
    if (!in || fill.size() != 7 || fill[0] != '#') throw std::runtime_error("box file line " + std::to_string(number) + " is not understood");
    n.fill = unsigned(std::strtoul(fill.c_str() + 1, nullptr, 16));
    return n;
}

BoxFile read_box_file(std::istream& file)
{
    BoxFile boxes;
    std::string text;
    for (int number = 1; std::getline(file, text); ++number) {
        std::istringstream in(text);
        std::string what;
        if (!(in >> what)) continue;
        if (what == "legend" || what == "minimap")
            boxes.overlays.emplace_back(what, read_box(in));
        else if (what == "inspected")
            in >> boxes.inspected;
        else if (what == "node")
            boxes.nodes.push_back(read_node(in, number));
        else
            throw std::runtime_error("box file line " + std::to_string(number) + ": unknown '" + what + "'");
    }
    return boxes;
}

// One node's failures: under an overlay, its fill not where the box says, or no label in it.
int check_node(const NodeLine& n, const BoxFile& boxes, const unsigned char* rgb, int width, int height, int& labelled)
{
    constexpr int kFar = 80;  // a channel this far from the fill: not fill (text, a mark, something else)
    int failures = 0;
    const std::string who = "node " + n.name + " (" + n.kind + ")";
    for (const auto& [overlay, box] : boxes.overlays)
        if (n.box.overlaps(box)) failures += fail(who + " lies under the " + overlay);
    const Box area = fill_area(n);
    long fill_pixels = 0, text_pixels = 0, all = 0;
    for (int y = std::max(0, int(std::ceil(area.y0))); y < std::min(height, int(area.y1)); ++y)
        for (int x = std::max(0, int(std::ceil(area.x0))); x < std::min(width, int(area.x1)); ++x) {
            if (n.marks.holds(float(x) + 0.5f, float(y) + 0.5f)) continue;
            const int d = channel_distance(rgb + 3 * (std::size_t(y) * std::size_t(width) + std::size_t(x)), n.fill);
            ++all;
            fill_pixels += d <= 8;
            text_pixels += d > kFar;
        }
    if (all == 0 || fill_pixels * 2 < all) {
        char share[32];
        std::snprintf(share, sizeof share, "%.0f%%", all ? 100.0 * double(fill_pixels) / double(all) : 0.0);
        failures += fail(who + ": its fill covers " + share + " of its inner area of " + std::to_string(all) +
                         " pixels: the box file does not describe this image");
    } else if (text_pixels < kMinTextPixels) {
        failures += fail(who + ": no label (" + std::to_string(text_pixels) + " text pixels in its box)");
    } else {
        ++labelled;
    }
    return failures;
}

}  // namespace

int check_labels(const unsigned char* rgb, int width, int height, const std::string& boxes)
{
    std::ifstream file(boxes);
    if (!file) return fail("cannot read the box file '" + boxes + "'");
    const BoxFile listed = read_box_file(file);
    int failures = 0, labelled = 0;
    for (const NodeLine& n : listed.nodes) failures += check_node(n, listed, rgb, width, height, labelled);
    std::printf("viz_screenshot_check: checked %zu node boxes: %d with a label; %zu overlays (legend, minimap); inspected node: %s\n",
                listed.nodes.size(), labelled, listed.overlays.size(), listed.inspected.empty() ? "none" : listed.inspected.c_str());
    if (listed.nodes.empty()) failures += fail("the box file lists no node box");
    const std::string& inspected = listed.inspected;
    if (!inspected.empty() && std::none_of(listed.nodes.begin(), listed.nodes.end(), [&](const NodeLine& n) { return n.name == inspected; }))
        failures += fail("node " + inspected + ", which the inspector shows, is not wholly in the canvas");
    return failures;
}

}  // namespace tinyamp::viz::check
