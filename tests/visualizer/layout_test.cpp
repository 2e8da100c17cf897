// layout_graph: Graphviz's dot layout read back in y-down points, checked for what the GUI relies
// on: every node boxed inside the drawing, edges as B-splines from their tail to their head, the
// forward and backward clusters around their nodes, and clear errors for a DOT of another trace.
#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <string>

#include "tests/support/expect_error.h"
#include "tests/support/recorded_traces.h"
#include "visualizer/model/layout.h"

using namespace tinyamp;
using viz::Layout;
using viz::Vec2;

namespace {

constexpr float kSlack = 1.0f;  // Graphviz rounds positions to whole points here and there

bool inside(Vec2 p, Vec2 min, Vec2 max, float slack = kSlack)
{
    return p.x >= min.x - slack && p.x <= max.x + slack && p.y >= min.y - slack && p.y <= max.y + slack;
}

Vec2 box_min(const viz::NodeBox& b) { return {b.center.x - b.size.x / 2, b.center.y - b.size.y / 2}; }
Vec2 box_max(const viz::NodeBox& b) { return {b.center.x + b.size.x / 2, b.center.y + b.size.y / 2}; }

Layout layout_of(const test::RecordedTrace& recorded) { return viz::layout_graph(recorded.graph, recorded.trace.to_dot()); }

const viz::ClusterBox* cluster(const Layout& layout, const std::string& name)
{
    for (const viz::ClusterBox& c : layout.clusters)
        if (c.name == name) return &c;
    return nullptr;
}

// The checks every layout must pass, whatever the trace.
void check_layout(const test::RecordedTrace& recorded, const Layout& layout)
{
    const trace::TraceGraph& g = recorded.graph;
    REQUIRE(layout.nodes.size() == g.nodes.size());
    REQUIRE(layout.edges.size() == g.edges.size());
    CHECK(layout.size.x > 0);
    CHECK(layout.size.y > 0);
    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
        const viz::NodeBox& box = layout.nodes[i];
        INFO("node " << g.nodes[i].name);
        CHECK(box.size.x > 0);
        CHECK(box.size.y > 0);
        CHECK(inside(box_min(box), {0, 0}, layout.size));
        CHECK(inside(box_max(box), {0, 0}, layout.size));
    }
    for (std::size_t k = 0; k < g.edges.size(); ++k) {
        const viz::EdgeCurve& edge = layout.edges[k];
        const viz::NodeBox& tail = layout.nodes[std::size_t(g.edges[k].from)];
        const viz::NodeBox& head = layout.nodes[std::size_t(g.edges[k].to)];
        INFO("edge " << k << ": " << g.nodes[std::size_t(g.edges[k].from)].name << " -> " << g.nodes[std::size_t(g.edges[k].to)].name);
        REQUIRE(edge.points.size() >= 4);
        CHECK((edge.points.size() - 1) % 3 == 0);  // p0, then (c1, c2, p) triples
        // y grows downwards and the graph is ranked top to bottom: every edge runs down the page.
        CHECK(head.center.y > tail.center.y);
        // The curve leaves at the tail's border and its arrow points at the head's border.
        CHECK(inside(edge.points.front(), box_min(tail), box_max(tail), 2));
        CHECK(edge.has_arrow);
        CHECK(inside(edge.arrow_tip, box_min(head), box_max(head), 2));
        CHECK(inside(edge.label_pos, {0, 0}, layout.size));
    }
    for (const viz::ClusterBox& c : layout.clusters) {
        CHECK(c.name != "legend");
        CHECK(c.min.x < c.max.x);
        CHECK(c.min.y < c.max.y);
        CHECK(inside(c.min, {0, 0}, layout.size));
        CHECK(inside(c.max, {0, 0}, layout.size));
    }
}

}  // namespace

TEST_CASE("layout_graph: a bf16 Linear step: boxes inside the drawing, edges from tail to head, both passes in their clusters")
{
    const test::LinearBf16Step step;
    const Layout layout = layout_of(step);
    check_layout(step, layout);

    REQUIRE(layout.clusters.size() == 2);  // forward and backward; the legend is left out
    const viz::ClusterBox* forward = cluster(layout, "forward");
    const viz::ClusterBox* backward = cluster(layout, "backward");
    REQUIRE(forward);
    REQUIRE(backward);
    CHECK(forward->label == "forward");
    CHECK(backward->label == "backward");
    for (std::size_t i = 0; i < step.graph.nodes.size(); ++i) {
        const viz::ClusterBox* home = step.graph.nodes[i].phase == trace::Phase::forward ? forward : backward;
        const viz::ClusterBox* other = home == forward ? backward : forward;
        INFO("node " << step.graph.nodes[i].name);
        CHECK(inside(box_min(layout.nodes[i]), home->min, home->max));
        CHECK(inside(box_max(layout.nodes[i]), home->min, home->max));
        CHECK_FALSE(inside(layout.nodes[i].center, other->min, other->max, 0));
    }
    // The op's box is wider than tall (three lines of text), and the drawing's width holds both clusters.
    const viz::NodeBox& linear = layout.nodes[std::size_t(step.node_of_seq(4))];
    CHECK(linear.size.x > linear.size.y);
    CHECK(layout.size.x >= (forward->max.x - forward->min.x) + (backward->max.x - backward->min.x));
}

TEST_CASE("layout_graph: the two edges of mul(x, x) are matched by id, so each has its own curve")
{
    const test::SquareStep step;
    const Layout layout = layout_of(step);
    check_layout(step, layout);
    REQUIRE(step.graph.edges.size() >= 2);
    REQUIRE(step.graph.edges[0].from == step.graph.edges[1].from);
    REQUIRE(step.graph.edges[0].to == step.graph.edges[1].to);
    const viz::EdgeCurve& first = layout.edges[0];
    const viz::EdgeCurve& second = layout.edges[1];
    bool differ = first.points.size() != second.points.size();
    for (std::size_t i = 0; !differ && i < first.points.size(); ++i)
        differ = std::abs(first.points[i].x - second.points[i].x) > 1 || std::abs(first.points[i].y - second.points[i].y) > 1;
    CHECK(differ);
    CHECK(std::abs(first.label_pos.x - second.label_pos.x) + std::abs(first.label_pos.y - second.label_pos.y) > 1);
}

TEST_CASE("layout_graph: an empty trace lays out to no nodes, edges or clusters")
{
    const trace::Trace empty;
    const trace::TraceGraph graph = trace::build_graph(empty);
    const Layout layout = viz::layout_graph(graph, empty.to_dot());
    CHECK(layout.nodes.empty());
    CHECK(layout.edges.empty());
    CHECK(layout.clusters.empty());
    CHECK(layout.size.x >= 0);
    CHECK(layout.size.y >= 0);
}

TEST_CASE("layout_graph: a DOT without one of the graph's nodes or edges, or no DOT at all, is refused with a clear message")
{
    const test::SquareStep square;
    const test::LinearBf16Step linear;
    // The graph of one trace with the DOT of another: the graph's first node is not there.
    const std::string missing_node =
        test::error_message([&] { viz::layout_graph(linear.graph, square.trace.to_dot()); }, ErrorKind::value);
    CHECK(missing_node.find(std::string("no node named ").append(linear.graph.nodes[0].name)) != std::string::npos);
    CHECK(missing_node.find("Trace::to_dot()") != std::string::npos);

    // The DOT without the edges' ids.
    std::string dot = square.trace.to_dot();
    for (std::size_t at = dot.find(", id=\"edge"); at != std::string::npos; at = dot.find(", id=\"edge"))
        dot.erase(at, dot.find(']', at) - at);
    const std::string missing_edge = test::error_message([&] { viz::layout_graph(square.graph, dot); }, ErrorKind::value);
    CHECK(missing_edge.find("no edge with id=\"edge0\"") != std::string::npos);

    // An edge id that names the wrong pair of nodes.
    std::string swapped = square.trace.to_dot();
    const std::size_t edge1 = swapped.find("id=\"edge1\""), edge2 = swapped.find("id=\"edge2\"");
    REQUIRE(edge1 != std::string::npos);
    REQUIRE(edge2 != std::string::npos);
    swapped[edge1 + 8] = '2';
    swapped[edge2 + 8] = '1';
    const std::string wrong = test::error_message([&] { viz::layout_graph(square.graph, swapped); }, ErrorKind::value);
    CHECK(wrong.find("but graph edge") != std::string::npos);

    const std::string garbage = test::error_message([&] { viz::layout_graph(square.graph, "this is not DOT {"); }, ErrorKind::value);
    CHECK(garbage.find("could not read the DOT text") != std::string::npos);
    INFO(garbage);
    CHECK(garbage.find("syntax error in line") != std::string::npos);  // what Graphviz said
}

TEST_CASE("layout_graph lays out a 200-node graph (its time is printed, not checked)")
{
    const test::DeepMlpStep mlp(17);
    REQUIRE(mlp.graph.nodes.size() >= 200);
    const std::string dot = mlp.trace.to_dot();
    const auto start = std::chrono::steady_clock::now();
    const Layout layout = viz::layout_graph(mlp.graph, dot);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    MESSAGE("layout of " << mlp.graph.nodes.size() << " nodes and " << mlp.graph.edges.size() << " edges: " << seconds * 1000 << " ms");
    check_layout(mlp, layout);
}
