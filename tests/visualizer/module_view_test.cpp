// The GUI's graph grouped by module: which modules start folded, the layout of folded modules
// (forward beside backward, frames nested as the modules are), the timeline over a folded
// module, and what the inspector says about one.
#include <doctest/doctest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "tests/support/recorded_traces.h"
#include "visualizer/model/inspector.h"
#include "visualizer/model/module_view.h"
#include "visualizer/model/stepper.h"

using namespace tinyamp;

namespace {

int node_named(const trace::TraceGraph& g, const std::string& name)
{
    const int i = g.find(name);
    REQUIRE_MESSAGE(i >= 0, "no node " << name);
    return i;
}

const viz::ClusterBox* cluster_of(const viz::Layout& layout, const std::string& name)
{
    for (const viz::ClusterBox& c : layout.clusters)
        if (c.name == name) return &c;
    return nullptr;
}

}  // namespace

TEST_CASE("default_collapsed: a small graph starts unfolded, a large one with its layers (innermost modules) folded")
{
    const test::NestedModulesStep small;
    REQUIRE(small.graph.nodes.size() <= viz::kCollapseAbove);
    CHECK(viz::default_collapsed(small.graph).empty());
    const test::DeepMlpStep deep(12);  // 24 modules, about 12 nodes a layer
    REQUIRE(deep.graph.nodes.size() > viz::kCollapseAbove);
    const std::set<std::string> folded = viz::default_collapsed(deep.graph);
    CHECK(folded.size() == 24);
    CHECK(folded.count("0") == 1);
    CHECK(folded.count("23") == 1);
    CHECK(folded == viz::top_level_modules(deep.graph));  // a flat model: its layers are its top-level modules

    // Nested: "2" holds "2.0"; the layers fold, the frame around them stays open.
    const test::NestedModulesStep nested(4);
    REQUIRE(nested.graph.nodes.size() > viz::kCollapseAbove);
    CHECK(viz::innermost_modules(nested.graph) == std::set<std::string>{"0", "1", "2.0"});
    CHECK(viz::default_collapsed(nested.graph) == std::set<std::string>{"0", "1", "2.0"});
    CHECK(viz::top_level_modules(nested.graph) == std::set<std::string>{"0", "1", "2"});
}

TEST_CASE("module view: a folded module's forward and backward boxes side by side, the unfolded ones in nested frames")
{
    const test::NestedModulesStep step;
    const viz::ModuleView view = viz::build_module_view(step.trace, {"0", "1"});
    const viz::NodeBox& forward = view.layout.nodes[std::size_t(node_named(view.graph, "m0f"))];
    const viz::NodeBox& backward = view.layout.nodes[std::size_t(node_named(view.graph, "m0b"))];
    CHECK(std::abs(forward.center.y - backward.center.y) < 1.0f);  // one rank
    CHECK(backward.center.x > forward.center.x);                   // the backward cluster is to the right
    // Module 2 is unfolded: a frame per phase, and 2.0's frame inside 2's, labelled path · type.
    const viz::ClusterBox* outer = cluster_of(view.layout, "m2f");
    const viz::ClusterBox* inner = cluster_of(view.layout, "m3f");
    REQUIRE(outer != nullptr);
    REQUIRE(inner != nullptr);
    CHECK(outer->module == "2");
    CHECK(inner->module == "2.0");
    CHECK(inner->label == "2.0 \u00b7 Linear");
    CHECK(inner->min.x >= outer->min.x);
    CHECK(inner->max.y <= outer->max.y);
    CHECK(cluster_of(view.layout, "forward")->module.empty());
    CHECK(cluster_of(view.layout, "m0f") == nullptr);  // folded: a box, no frame
}

TEST_CASE("find_node and module_hiding: what --select names, and the folded module to unfold to show it")
{
    // Linear(4, 3), ReLU, Sequential(Linear(3, 2)) under bf16 autocast, "0" and "1" folded.
    const test::NestedModulesStep step;
    const viz::ModuleView view = viz::build_module_view(step.trace, {"0", "1"});
    const trace::TraceGraph& g = view.graph;
    CHECK(viz::find_node(step.trace, g, "module:0") == node_named(g, "m0f"));
    CHECK(viz::find_node(step.trace, g, "module:0:backward") == node_named(g, "m0b"));
    CHECK(viz::find_node(step.trace, g, "module:2") == -1);  // unfolded: a frame, no box
    // "linear" names the first linear event shown: 2.0's, since 0's is folded into its box.
    const int linear = viz::find_node(step.trace, g, "linear");
    REQUIRE(linear >= 0);
    CHECK(g.nodes[std::size_t(linear)].module == "2.0");
    CHECK(viz::module_hiding(step.trace, g, "linear") == "");  // a node already: nothing to unfold
    CHECK(viz::module_hiding(step.trace, g, "0.weight") == "0");  // the first event that uses it is in 0's box
    CHECK(viz::module_hiding(step.trace, g, "module:0") == "");
    CHECK(viz::module_hiding(step.trace, g, "no such node") == "");
    CHECK(viz::find_node(step.trace, g, "no such node") == -1);
    // Every layer folded: "linear" names no node, and 0 is the module to unfold to show it.
    const trace::TraceGraph all_folded = viz::build_module_view(step.trace, {"0", "1", "2.0"}).graph;
    CHECK(viz::find_node(step.trace, all_folded, "linear") == -1);
    CHECK(viz::module_hiding(step.trace, all_folded, "linear") == "0");
    CHECK(viz::module_hiding(step.trace, all_folded, "backward:linear") == "2.0");  // the backward pass meets 2.0 first
    const trace::TraceGraph unfolded = viz::build_module_view(step.trace, {"1", "2.0"}).graph;
    const int first = viz::find_node(step.trace, unfolded, "linear");
    REQUIRE(first >= 0);
    CHECK(unfolded.nodes[std::size_t(first)].module == "0");
}

TEST_CASE("Stepper over folded modules: every event counted, a module box shown from its first event")
{
    const test::NestedModulesStep step;
    const trace::TraceGraph g = trace::build_graph(step.trace, {.collapsed = {"0"}});
    viz::Stepper stepper(g, step.trace.events().size());
    const int box = node_named(g, "m0f");
    stepper.seek(0);
    CHECK_FALSE(stepper.node_shown(box));
    stepper.seek(1);  // the first event is module 0's cast of x
    CHECK(stepper.node_shown(box));
    CHECK(stepper.current_node() == box);
    stepper.to_backward_start();
    CHECK(stepper.position() == 9);  // 9 forward events, 4 of them in the box
    CHECK(g.nodes[std::size_t(stepper.current_node())].label.front() == "sum");
}

TEST_CASE("inspect a folded module: what ran in it, its casts and cache hits, what goes in and out, the values it hands on")
{
    const test::NestedModulesStep step(2);
    const trace::TraceGraph g = trace::build_graph(step.trace, {.collapsed = {"0"}});
    const viz::NodeDetails d = viz::inspect(step.trace, g, node_named(g, "m0f"));
    CHECK(d.title == "0 \u00b7 Linear  (module, forward, collapsed)");
    CHECK(d.kind == trace::NodeKind::module);
    REQUIRE(!d.facts.empty());
    CHECK(d.facts[0] == "8 events ran in it: cast, cast, cast, linear, cast, cast, cast, linear");
    CHECK(d.facts[1] == "autocast cast 6 tensors for it; the cast cache served 2 of them");
    REQUIRE(d.inputs.size() == 1);  // x, once
    CHECK(d.inputs[0].name == "x");
    REQUIRE(d.outputs.size() == 2);  // its output, into each pass's relu
    CHECK(d.outputs[0].dtype == bf16);
    CHECK(d.has_values);
    CHECK(d.values.dtype == bf16);
    CHECK(d.values.shape == Shape{2, 3});
}

TEST_CASE("inspect a folded backward module: its values are those of the gradient it passes on, not of the .grad it wrote last")
{
    const test::NestedModulesStep step;
    const trace::TraceGraph g = trace::build_graph(step.trace, {.collapsed = {"2"}});
    const viz::NodeDetails d = viz::inspect(step.trace, g, node_named(g, "m2b"));
    REQUIRE(d.outputs.size() == 1);  // the gradient of the ReLU's output
    CHECK(d.outputs[0].dtype == bf16);
    REQUIRE(d.has_values);
    CHECK(d.values.id == d.outputs[0].id);
    CHECK(d.values.dtype == bf16);
    CHECK(d.values.shape == Shape{2, 3});
}

TEST_CASE("inspect a backward op whose gradient goes into a folded module: it names the module")
{
    const test::NestedModulesStep step;
    const trace::TraceGraph g = trace::build_graph(step.trace, {.collapsed = {"0"}});
    // The ReLU's backward sends its gradient into folded Linear 0's backward box.
    int relu_backward = -1;
    for (std::size_t i = 0; i < g.nodes.size(); ++i)
        if (g.nodes[i].event >= 0 && g.nodes[i].phase == trace::Phase::backward && step.trace.events()[std::size_t(g.nodes[i].event)].op == "relu")
            relu_backward = int(i);
    REQUIRE(relu_backward >= 0);
    const viz::NodeDetails d = viz::inspect(step.trace, g, relu_backward);
    REQUIRE(!d.facts.empty());
    CHECK(d.facts[0] == "produced 1 gradient: a gradient for 0 \u00b7 Linear (bf16 [2, 3])");
}

TEST_CASE("every node of a graph folded in any way can be inspected")
{
    const test::NestedModulesStep step(2);
    for (const std::set<std::string>& folded : std::vector<std::set<std::string>>{{}, {"0"}, {"1"}, {"2"}, {"2.0"}, {"0", "1", "2"}}) {
        const trace::TraceGraph g = trace::build_graph(step.trace, {.collapsed = folded});
        for (std::size_t i = 0; i < g.nodes.size(); ++i) {
            INFO("node " << g.nodes[i].name << " with " << folded.size() << " modules folded");
            const viz::NodeDetails d = viz::inspect(step.trace, g, int(i));
            CHECK(!d.title.empty());
        }
    }
}
