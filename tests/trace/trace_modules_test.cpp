// The module each op ran in: recorded by nn::Module's call (trace::ModuleScope), carried to the
// backward events, listed by build_graph, and collapsed to one node per module and phase.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <tinyamp/tinyamp.h>
#include <tinyamp/trace/trace.h>
#include <tinyamp/trace/trace_graph.h>

#include "tests/support/recorded_traces.h"

using namespace tinyamp;
using trace::GraphNode;
using trace::NodeKind;
using trace::Phase;

namespace {

// The modules of the events of `phase` whose op is `op`, in order.
std::vector<std::string> modules_of(const trace::Trace& t, Phase phase, const std::string& op)
{
    std::vector<std::string> out;
    for (const trace::Event& e : t.events())
        if (e.phase == phase && e.op == op) out.push_back(e.module);
    return out;
}

// The module of the backward event that wrote `grad_name` (an AccumulateGrad).
std::string module_of_accumulate(const trace::Trace& t, const std::string& grad_name)
{
    for (const trace::Event& e : t.events())
        if (e.op == "AccumulateGrad" && !e.outputs.empty() && e.outputs[0].name == grad_name) return e.module;
    FAIL("no AccumulateGrad wrote " << grad_name);
    return "";
}

// The node of an outside tensor in `g` ("t<id>"), or -1.
int tensor_node(const trace::TraceGraph& g, const Tensor& t) { return g.find(std::string("t").append(std::to_string(t.id()))); }

const GraphNode& node_named(const trace::TraceGraph& g, const std::string& name)
{
    const int i = g.find(name);
    REQUIRE_MESSAGE(i >= 0, "no node " << name);
    return g.nodes[std::size_t(i)];
}

}  // namespace

TEST_CASE("nn::Module knows the name its parent gave it, the model itself has none")
{
    nn::Sequential model;
    const auto inner = model.emplace_back<nn::Sequential>();
    const auto linear = inner->emplace_back<nn::Linear>(2, 2);
    CHECK(model.name().empty());
    CHECK(inner->name() == "0");
    CHECK(linear->name() == "0");
}

TEST_CASE("ModuleScope: nested scopes make a dotted path, an unnamed scope adds nothing, scopes end with their block")
{
    CHECK(trace::current_module_path().empty());
    {
        const std::string root, block = "4", attn = "attn";
        const trace::ModuleScope outer(root, "Model");
        CHECK(trace::current_module_path().empty());
        const trace::ModuleScope middle(block, "Block");
        const trace::ModuleScope inner(attn, "Attention");
        CHECK(trace::current_module_path() == "4.attn");
        CHECK(trace::current_module_types() == "Block.Attention");
    }
    CHECK(trace::current_module_path().empty());
    CHECK(trace::current_module_types().empty());
}

TEST_CASE("forward events carry the path of the module they ran in, outermost name first")
{
    const test::NestedModulesStep step;
    const trace::Trace& t = step.trace;
    CHECK(modules_of(t, Phase::forward, "linear") == std::vector<std::string>{"0", "2.0"});
    CHECK(modules_of(t, Phase::forward, "relu") == std::vector<std::string>{"1"});
    CHECK(modules_of(t, Phase::forward, "sum") == std::vector<std::string>{""});  // called outside the model
    // The casts autocast made for a layer are that layer's too.
    for (const trace::Event& e : t.events())
        if (e.is_cast && e.inputs.at(0).name == "2.0.weight") CHECK(e.module == "2.0");
    for (const trace::Event& e : t.events())
        if (e.module == "2.0") CHECK(e.module_types == "Sequential.Linear");
        else if (e.module == "0") CHECK(e.module_types == "Linear");
}

TEST_CASE("backward events take the module of the forward op that made their node, AccumulateGrad that of its sender")
{
    const test::NestedModulesStep step;
    const trace::Trace& t = step.trace;
    CHECK(modules_of(t, Phase::backward, "linear") == std::vector<std::string>{"2.0", "0"});
    CHECK(modules_of(t, Phase::backward, "relu") == std::vector<std::string>{"1"});
    CHECK(modules_of(t, Phase::backward, "sum") == std::vector<std::string>{""});
    CHECK(module_of_accumulate(t, "0.weight.grad") == "0");
    CHECK(module_of_accumulate(t, "2.0.bias.grad") == "2.0");
    CHECK(module_of_accumulate(t, "2.0.weight.grad") == "2.0");
}

TEST_CASE("without a trace recording, calling a module records nothing and leaves no module path behind")
{
    nn::Sequential model;
    model.emplace_back<nn::Linear>(2, 2);
    const Tensor y = model(ones({1, 2}));
    CHECK(y.shape() == Shape{1, 2});
    CHECK(trace::current_module_path().empty());
}

TEST_CASE("build_graph lists every module path with the ones above it, and their types")
{
    const test::NestedModulesStep step;
    CHECK(step.graph.modules == std::vector<std::string>{"0", "1", "2", "2.0"});
    CHECK(step.graph.module_types == std::vector<std::string>{"Linear", "ReLU", "Sequential", "Linear"});
    CHECK(step.graph.module_index("2.0") == 3);
    CHECK(step.graph.module_index("9") == -1);
    // A weight's node is its layer's; the input is nobody's.
    CHECK(step.graph.nodes[std::size_t(step.node_of_tensor(step.model->named_parameters()[0].second))].module == "0");
    CHECK(step.graph.nodes[std::size_t(step.node_of_tensor(step.x))].module.empty());
}

TEST_CASE("a collapsed module is one node per phase, filled like its output, with its events, casts and cache hits counted")
{
    const test::NestedModulesStep step(2);  // the second pass's weight casts are cache hits
    const trace::TraceGraph g = trace::build_graph(step.trace, {.collapsed = {"0"}});
    const GraphNode& forward = node_named(g, "m0f");
    CHECK(forward.kind == NodeKind::module);
    CHECK(forward.phase == Phase::forward);
    CHECK(forward.module == "0");
    CHECK(forward.events.size() == 8);  // per pass: casts of x, weight and bias, and linear
    CHECK(forward.casts == 6);
    CHECK(forward.cache_hits == 2);
    CHECK(forward.dtype == bf16);
    CHECK(forward.label == std::vector<std::string>{"0 \u00b7 Linear", "bf16 [2, 3]", "8 events, 6 casts, 2 cache hits"});
    const GraphNode& backward = node_named(g, "m0b");
    CHECK(backward.phase == Phase::backward);
    // Nothing of module 0 is left outside its nodes: its weights are inside, the input x is not.
    for (const GraphNode& node : g.nodes)
        if (node.module == "0") CHECK(node.kind == NodeKind::module);
    CHECK(tensor_node(g, step.model->named_parameters()[0].second) == -1);
    CHECK(tensor_node(g, step.x) >= 0);
    // Every event of module 0 maps to its node; the others keep theirs.
    for (std::size_t i = 0; i < step.trace.events().size(); ++i) {
        const std::string& module = step.trace.events()[i].module;
        const GraphNode& node = g.nodes[std::size_t(g.node_of_event(i))];
        CHECK((module == "0") == (node.kind == NodeKind::module));
    }
}

TEST_CASE("collapsed modules keep the edges in and out of them, once per tensor, and none inside")
{
    const test::NestedModulesStep step;
    const trace::TraceGraph g = trace::build_graph(step.trace, {.collapsed = {"0", "1", "2"}});
    const int m0 = g.find("m0f"), m1 = g.find("m1f"), m2 = g.find("m2f");
    REQUIRE(m0 >= 0);
    REQUIRE(m1 >= 0);
    REQUIRE(m2 >= 0);
    CHECK(g.find("m3f") == -1);  // 2.0 is inside 2's node
    CHECK(node_named(g, "m2f").label.front() == "2 \u00b7 Sequential");
    auto edges_between = [&](int from, int to) {
        return std::count_if(g.edges.begin(), g.edges.end(), [&](const trace::GraphEdge& e) { return e.from == from && e.to == to; });
    };
    CHECK(edges_between(tensor_node(g, step.x), m0) == 1);  // x goes in once
    CHECK(edges_between(m0, m1) == 1);
    CHECK(edges_between(m1, m2) == 1);
    for (const trace::GraphEdge& e : g.edges) {
        CHECK(e.from != e.to);
        CHECK(e.from >= 0);
        CHECK(std::size_t(e.from) < g.nodes.size());
        CHECK(std::size_t(e.to) < g.nodes.size());
    }
    // The forward graph is now: x, three module nodes and the sum.
    const auto forward_nodes = std::count_if(g.nodes.begin(), g.nodes.end(), [](const GraphNode& n) { return n.phase == Phase::forward; });
    CHECK(forward_nodes == 5);
}

TEST_CASE("collapsing a path the trace lacks changes nothing")
{
    const test::NestedModulesStep step;
    const trace::TraceGraph g = trace::build_graph(step.trace, {.collapsed = {"7"}});
    CHECK(g.nodes.size() == step.graph.nodes.size());
    CHECK(g.edges.size() == step.graph.edges.size());
}
