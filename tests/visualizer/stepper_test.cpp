// The Stepper, driven as the buttons drive it, over a recorded bf16 autocast step of nn::Linear:
// which event is current, what the inspector says about it, and what is shown.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "tests/support/expect_error.h"
#include "tests/support/recorded_traces.h"
#include "visualizer/model/inspector.h"
#include "visualizer/model/stepper.h"

using namespace tinyamp;
using test::LinearBf16Step;
using viz::Stepper;

namespace {

std::vector<DType> dtypes_of(const std::vector<trace::TensorInfo>& tensors)
{
    std::vector<DType> dtypes;
    for (const trace::TensorInfo& t : tensors) dtypes.push_back(t.dtype);
    return dtypes;
}

// The current event's op and phase, e.g. "linear backward".
std::string current(const LinearBf16Step& step, const Stepper& stepper)
{
    const auto event = stepper.current_event();
    if (!event) return "nothing";
    const trace::Event& e = step.trace.events().at(*event);
    return e.op + " " + trace::phase_name(e.phase);
}

}  // namespace

TEST_CASE("Stepper: stepping forward and back through a bf16 Linear step, with what the inspector reports")
{
    const LinearBf16Step step;
    Stepper stepper(step.graph, step.trace.events().size());
    CHECK(stepper.position() == 11);  // starts with everything shown
    stepper.to_start();
    CHECK(stepper.position() == 0);
    CHECK_FALSE(stepper.current_event());
    CHECK(stepper.current_node() == -1);
    CHECK_FALSE(stepper.step_back());

    // #1: autocast casts x to bf16 for the linear.
    REQUIRE(stepper.step_forward());
    CHECK(current(step, stepper) == "to forward");
    viz::NodeDetails d = viz::inspect(step.trace, step.graph, stepper.current_node());
    CHECK(d.kind == trace::NodeKind::cast);
    CHECK(d.title == "cast f32\u2192bf16  (#1, forward)");
    CHECK(dtypes_of(d.inputs) == std::vector<DType>{f32});
    CHECK(dtypes_of(d.outputs) == std::vector<DType>{bf16});
    CHECK(d.cache.empty());  // x does not require grad: not cached

    // #2: the weight's cast, stored in the cast cache.
    REQUIRE(stepper.step_forward());
    d = viz::inspect(step.trace, step.graph, stepper.current_node());
    CHECK(d.kind == trace::NodeKind::cast);
    CHECK(d.inputs.at(0).name == "weight");
    CHECK(d.cache.find("the cast cache stored this cast: weight") == 0);

    // #4: the linear itself, all in bf16.
    REQUIRE(stepper.step_forward());
    REQUIRE(stepper.step_forward());
    CHECK(current(step, stepper) == "linear forward");
    d = viz::inspect(step.trace, step.graph, stepper.current_node());
    CHECK(d.kind == trace::NodeKind::op);
    CHECK(d.title == "linear  (#4, forward)");
    CHECK(d.policy == "lower_precision_fp");
    CHECK(dtypes_of(d.inputs) == std::vector<DType>{bf16, bf16, bf16});
    CHECK(dtypes_of(d.outputs) == std::vector<DType>{bf16});
    CHECK(d.has_values);
    CHECK(d.values.dtype == bf16);
    CHECK(d.values.shape == Shape{2, 3});

    // Back one: the bias's cast again.
    REQUIRE(stepper.step_back());
    CHECK(stepper.position() == 3);
    CHECK(current(step, stepper) == "to forward");
    CHECK(viz::inspect(step.trace, step.graph, stepper.current_node()).inputs.at(0).name == "bias");

    // To the start of backward: sum (forward) is the last event shown.
    stepper.to_backward_start();
    CHECK(stepper.position() == 5);
    CHECK(current(step, stepper) == "sum forward");

    REQUIRE(stepper.step_forward());
    CHECK(current(step, stepper) == "sum backward");
    REQUIRE(stepper.step_forward());
    CHECK(current(step, stepper) == "linear backward");
    d = viz::inspect(step.trace, step.graph, stepper.current_node());
    CHECK(d.title == "linear  (#7, backward)");
    CHECK(dtypes_of(d.inputs) == std::vector<DType>{bf16});        // the gradient of linear's bf16 output
    CHECK(dtypes_of(d.outputs) == std::vector<DType>{bf16, bf16});  // the gradients of the bf16 weight and bias copies
    REQUIRE_FALSE(d.facts.empty());
    CHECK(d.facts.front() == "produced 2 gradients: grad of weight (bf16 [3, 4]), grad of bias (bf16 [3])");

    // The casts' backward turns the gradients back into f32, for the f32 parameters.
    REQUIRE(stepper.step_forward());
    d = viz::inspect(step.trace, step.graph, stepper.current_node());
    CHECK(current(step, stepper) == "to backward");
    CHECK(dtypes_of(d.inputs) == std::vector<DType>{bf16});
    CHECK(dtypes_of(d.outputs) == std::vector<DType>{f32});

    stepper.to_end();
    CHECK(current(step, stepper) == "AccumulateGrad backward");
    d = viz::inspect(step.trace, step.graph, stepper.current_node());
    CHECK(d.facts.front() == "wrote weight.grad (f32 [3, 4])");
    CHECK_FALSE(stepper.step_forward());
    CHECK(stepper.position() == 11);
}

TEST_CASE("Stepper: a parameter's node shows with its cast, the gradient seed with the first backward event, edges with their consumer")
{
    const LinearBf16Step step;
    Stepper stepper(step.graph, step.trace.events().size());
    const int weight = step.node_of_tensor(step.layer.weight);
    REQUIRE(weight >= 0);
    int seed = -1;
    for (std::size_t i = 0; i < step.graph.nodes.size(); ++i)
        if (step.graph.nodes[i].tensor.name == "gradient seed") seed = int(i);
    REQUIRE(seed >= 0);

    stepper.seek(1);  // x's cast only
    CHECK_FALSE(stepper.node_shown(weight));
    CHECK(stepper.node_shown(step.node_of_seq(1)));
    CHECK_FALSE(stepper.node_shown(step.node_of_seq(2)));
    stepper.seek(2);  // the weight's cast shows the weight
    CHECK(stepper.node_shown(weight));
    stepper.seek(5);
    CHECK_FALSE(stepper.node_shown(seed));
    stepper.seek(6);
    CHECK(stepper.node_shown(seed));

    for (std::size_t position = 0; position <= 11; ++position) {
        stepper.seek(position);
        for (std::size_t k = 0; k < step.graph.edges.size(); ++k)
            CHECK(stepper.edge_shown(int(k)) == stepper.node_shown(step.graph.edges[k].to));
        // An edge's source is shown whenever the edge is.
        for (std::size_t k = 0; k < step.graph.edges.size(); ++k)
            if (stepper.edge_shown(int(k))) CHECK(stepper.node_shown(step.graph.edges[k].from));
    }
    CHECK(test::error_message([&] { (void)stepper.node_shown(int(step.graph.nodes.size())); }, ErrorKind::index).find("outside") !=
          std::string::npos);
    CHECK(test::error_message([&] { (void)stepper.edge_shown(-1); }, ErrorKind::index).find("outside") != std::string::npos);
}

TEST_CASE("Stepper: seek clamps and pauses, and stepping stops at both ends")
{
    const LinearBf16Step step;
    Stepper stepper(step.graph, 11);
    stepper.play();
    CHECK(stepper.playing());
    stepper.seek(99);
    CHECK(stepper.position() == 11);
    CHECK_FALSE(stepper.playing());
    stepper.seek(4);
    CHECK(stepper.position() == 4);
    CHECK(*stepper.current_event() == 3);
    CHECK(stepper.current_node() == step.node_of_seq(4));
    stepper.to_start();
    CHECK_FALSE(stepper.step_back());
    CHECK(stepper.position() == 0);
    stepper.to_end();
    CHECK_FALSE(stepper.step_forward());
    CHECK(stepper.position() == 11);
}

TEST_CASE("Stepper: play starts over from the end, advances at `speed` events per second and pauses at the end")
{
    const LinearBf16Step step;
    Stepper stepper(step.graph, 11);
    stepper.play();  // at the end: from the start
    CHECK(stepper.position() == 0);
    CHECK(stepper.playing());
    stepper.set_speed(2.0);
    CHECK(stepper.speed() == 2.0);
    stepper.advance(0.4);  // 0.8 events: not yet
    CHECK(stepper.position() == 0);
    stepper.advance(0.1);  // 1 event
    CHECK(stepper.position() == 1);
    stepper.advance(1.5);  // 3 more
    CHECK(stepper.position() == 4);
    // Ten frames of 0.1 s at 1 event per second make exactly one step, rounding aside.
    stepper.set_speed(1.0);
    for (int frame = 0; frame < 10; ++frame) stepper.advance(0.1);
    CHECK(stepper.position() == 5);
    // Paused, time passes without steps.
    stepper.pause();
    stepper.advance(10.0);
    CHECK(stepper.position() == 5);
    // Playing on from the middle keeps the position; a long frame runs to the end and pauses there.
    stepper.play();
    CHECK(stepper.position() == 5);
    stepper.advance(100.0);
    CHECK(stepper.position() == 11);
    CHECK_FALSE(stepper.playing());
}

TEST_CASE("Stepper: an empty trace has nothing to show or play, and bad arguments are refused")
{
    const trace::TraceGraph empty = trace::build_graph(trace::Trace());
    Stepper stepper(empty, 0);
    CHECK(stepper.position() == 0);
    CHECK_FALSE(stepper.step_forward());
    CHECK_FALSE(stepper.step_back());
    CHECK(stepper.current_node() == -1);
    stepper.to_backward_start();
    CHECK(stepper.position() == 0);
    stepper.play();
    CHECK_FALSE(stepper.playing());

    const LinearBf16Step step;
    CHECK(test::error_message([&] { Stepper wrong(step.graph, 3); }, ErrorKind::value).find("trace.events().size()") != std::string::npos);
    Stepper good(step.graph, 11);
    CHECK(test::error_message([&] { good.set_speed(0); }, ErrorKind::value).find("positive") != std::string::npos);
    CHECK(test::error_message([&] { good.advance(-1); }, ErrorKind::value).find(">= 0") != std::string::npos);
    CHECK(good.speed() == 4.0);
}
