// build_graph: the nodes and edges that both Trace::to_dot() and the visualizer draw, checked on
// recorded traces (tests/support/recorded_traces.h: a square with a repeated input, and a bf16
// autocast step with a cache hit).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <tinyamp/tinyamp.h>
#include <tinyamp/trace/trace.h>
#include <tinyamp/trace/trace_graph.h>

#include "tests/support/recorded_traces.h"

using namespace tinyamp;
using trace::NodeKind;
using trace::Trace;
using trace::TraceGraph;

namespace {

const trace::GraphNode& node_of(const TraceGraph& g, std::size_t event) { return g.nodes.at(std::size_t(g.node_of_event(event))); }

}  // namespace

TEST_CASE("build_graph: one node per event named e<seq>, each outside tensor t<id> right before its first consumer")
{
    const test::SquareStep square;
    const Tensor& x = square.x;
    const Trace& t = square.trace;
    const TraceGraph& g = square.graph;
    REQUIRE(t.events().size() >= 4);
    REQUIRE(g.event_nodes.size() == t.events().size());
    for (std::size_t i = 0; i < t.events().size(); ++i) {
        const trace::GraphNode& n = node_of(g, i);
        CHECK(n.name == std::string("e").append(std::to_string(t.events()[i].seq)));
        CHECK(n.event == int(i));
        CHECK(n.phase == t.events()[i].phase);
        CHECK(n.kind == NodeKind::op);
        CHECK(g.find(n.name) == g.node_of_event(i));
    }
    // x comes first, then mul; the gradient seed just before the first backward event.
    const int x_node = square.node_of_tensor(x);
    REQUIRE(x_node == 0);
    CHECK(g.nodes[0].kind == NodeKind::tensor);
    CHECK(g.nodes[0].is_parameter);
    CHECK(g.nodes[0].event == -1);
    CHECK(g.nodes[0].label == std::vector<std::string>{"x", "f32 [3]"});
    CHECK(g.node_of_event(0) == 1);
    CHECK(t.events()[0].op == "mul");
    std::size_t first_backward = 0;
    while (t.events()[first_backward].phase == trace::Phase::forward) ++first_backward;
    const int seed = g.node_of_event(first_backward) - 1;
    CHECK(g.nodes[std::size_t(seed)].kind == NodeKind::tensor);
    CHECK(g.nodes[std::size_t(seed)].phase == trace::Phase::backward);
    CHECK(g.nodes[std::size_t(seed)].tensor.name == "gradient seed");
    CHECK_FALSE(g.nodes[std::size_t(seed)].is_parameter);
    CHECK(g.node_of_event(t.events().size()) == -1);
    CHECK(g.find("e999") == -1);
}

TEST_CASE("build_graph: one edge per input slot, so mul(x, x) has two distinct edges from x")
{
    const test::SquareStep square;
    const Tensor& x = square.x;
    const Trace& t = square.trace;
    const TraceGraph& g = square.graph;
    std::size_t inputs = 0;
    for (const trace::Event& e : t.events()) inputs += e.inputs.size();
    CHECK(g.edges.size() == inputs);
    REQUIRE(g.edges.size() >= 2);
    CHECK(g.edges[0].from == 0);
    CHECK(g.edges[0].to == 1);
    CHECK(g.edges[0].slot == 0);
    CHECK(g.edges[1].from == 0);
    CHECK(g.edges[1].to == 1);
    CHECK(g.edges[1].slot == 1);
    CHECK(g.edges[0].tensor.id == x.id());
    CHECK(g.edges[0].label == "f32 [3]");
    // sum takes mul's output: the edge starts at mul's node.
    CHECK(g.edges[2].from == g.node_of_event(0));
    CHECK(g.edges[2].to == g.node_of_event(1));
    CHECK(g.edges[2].tensor.id == t.events()[0].outputs[0].id);
    // Every edge ends at an event node and starts earlier in the node order.
    for (const trace::GraphEdge& e : g.edges) {
        CHECK(g.nodes[std::size_t(e.to)].event >= 0);
        CHECK(e.from < e.to);
    }
}

TEST_CASE("build_graph: casts, the cache's store and hit, the parameter, and the legend's dtypes")
{
    const test::CastReuseStep reuse(3);
    const Trace& t = reuse.trace;
    const TraceGraph& g = reuse.graph;
    CHECK(g.has_casts);
    CHECK(g.has_cache_hits);
    CHECK(g.dtypes == std::vector<DType>{f32, bf16});
    int stored = 0, hits = 0, casts = 0;
    for (std::size_t i = 0; i < t.events().size(); ++i) {
        const trace::GraphNode& n = node_of(g, i);
        CHECK((n.kind == NodeKind::cast) == t.events()[i].is_cast);
        CHECK(n.cache == t.events()[i].cache);
        CHECK(n.tooltip == t.events()[i].why);
        REQUIRE(n.has_dtype);
        CHECK(n.dtype == t.events()[i].outputs.at(0).dtype);
        casts += n.kind == NodeKind::cast ? 1 : 0;
        stored += n.cache == trace::CacheEvent::stored ? 1 : 0;
        hits += n.cache == trace::CacheEvent::hit ? 1 : 0;
    }
    CHECK(casts == 3);  // x and w for the first linear, w again (the hit) for the second; sum is not listed
    CHECK(stored == 1);
    CHECK(hits == 1);
    const int w1_node = reuse.node_of_tensor(reuse.w1);
    REQUIRE(w1_node >= 0);
    CHECK(g.nodes[std::size_t(w1_node)].is_parameter);
    CHECK_FALSE(g.nodes[std::size_t(reuse.node_of_tensor(reuse.x))].is_parameter);
    // w1 has one node however often it is cast.
    int w1_nodes = 0;
    for (const trace::GraphNode& n : g.nodes) w1_nodes += n.kind == NodeKind::tensor && n.tensor.id == reuse.w1.id() ? 1 : 0;
    CHECK(w1_nodes == 1);
}

TEST_CASE("build_graph lists the dtypes of scaled casts apart: fp8_linear's inputs and outputs stay f32")
{
    Generator gen(7);
    const Tensor x = randn({4, 32}, f32, gen).requires_grad_(), w = randn({8, 32}, f32, gen).requires_grad_();
    Trace t;
    {
        trace::TraceRecorder record(t);
        sum(fp8_linear(x, w, Tensor(), amp::Float8CurrentScaling{})).backward();
    }
    const TraceGraph g = build_graph(t);
    CHECK(g.dtypes == std::vector<DType>{f32});
    CHECK(g.scaled_cast_dtypes == std::vector<DType>{f8e4m3fn, f8e5m2});  // E4M3 forward, E5M2 gradient (HYBRID)
    CHECK(build_graph(t, {.collapsed = {"anything"}}).scaled_cast_dtypes == g.scaled_cast_dtypes);
    CHECK(build_graph(Trace()).scaled_cast_dtypes.empty());
}

TEST_CASE("build_graph of an empty trace has no nodes, edges or dtypes")
{
    const TraceGraph g = build_graph(Trace());
    CHECK(g.nodes.empty());
    CHECK(g.edges.empty());
    CHECK(g.dtypes.empty());
    CHECK_FALSE(g.has_casts);
    CHECK(g.node_of_event(0) == -1);
}

TEST_CASE("to_dot writes build_graph's nodes with their labels, and each edge with id=\"edge<k>\"")
{
    const test::CastReuseStep reuse(4);
    const TraceGraph& g = reuse.graph;
    const std::string dot = reuse.trace.to_dot();
    for (const trace::GraphNode& n : g.nodes) {
        std::string label;
        for (const std::string& line : n.label) label.append(label.empty() ? "" : "\\n").append(line);
        INFO(n.name);
        CHECK(dot.find(std::string("    ").append(n.name).append(" [")) != std::string::npos);
        CHECK(dot.find(std::string("label=\"").append(label).append("\"")) != std::string::npos);
    }
    for (std::size_t k = 0; k < g.edges.size(); ++k) {
        const std::string edge = std::string("  ")
                                     .append(g.nodes[std::size_t(g.edges[k].from)].name)
                                     .append(" -> ")
                                     .append(g.nodes[std::size_t(g.edges[k].to)].name)
                                     .append(" [label=\"")
                                     .append(g.edges[k].label);
        const std::size_t at = dot.find(std::string("id=\"edge").append(std::to_string(k)).append("\"]"));
        INFO("edge " << k);
        REQUIRE(at != std::string::npos);
        CHECK(dot.rfind(edge, at) == dot.rfind("\n  ", at) + 1);  // on the line of that edge
    }
}

TEST_CASE("node_kind_name names each kind")
{
    CHECK(std::string(trace::node_kind_name(NodeKind::op)) == "op");
    CHECK(std::string(trace::node_kind_name(NodeKind::cast)) == "cast");
    CHECK(std::string(trace::node_kind_name(NodeKind::tensor)) == "tensor");
}

TEST_CASE("node_of_event finds the event's node in a graph put together by hand, without event_nodes")
{
    TraceGraph g;
    g.nodes.resize(3);
    g.nodes[0].kind = NodeKind::tensor;
    g.nodes[1].event = 0;
    g.nodes[2].event = 1;
    CHECK(g.node_of_event(0) == 1);
    CHECK(g.node_of_event(1) == 2);
    CHECK(g.node_of_event(2) == -1);
}
