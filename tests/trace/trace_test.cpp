// The Trace container, the thread-local recorder and nesting, and what the ops and the backward
// engine record into it: a real forward and backward of a tiny MLP.
#include <doctest/doctest.h>

#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <tinyamp/tinyamp.h>
#include <tinyamp/trace/trace.h>

using namespace tinyamp;
using trace::Event;
using trace::Phase;
using trace::Trace;
using trace::TraceRecorder;

namespace {

Event op_event(const std::string& op)
{
    Event e;
    e.op = op;
    return e;
}

// A 3 -> 5 -> 3 MLP on a batch of 4, named as a student would name it.
struct TinyMlp {
    Tensor x, y, w1, b1, w2, b2;

    TinyMlp()
    {
        Generator gen(7);
        x = randn({4, 3}, f32, gen);
        x.set_name("x");
        y = tensor({0, 2, 1, 0}, {4}, i64);
        w1 = param(randn({5, 3}, f32, gen), "w1");
        b1 = param(randn({5}, f32, gen), "b1");
        w2 = param(randn({3, 5}, f32, gen), "w2");
        b2 = param(randn({3}, f32, gen), "b2");
    }
    Tensor loss() const { return cross_entropy(linear(relu(linear(x, w1, b1)), w2, b2), y); }

    static Tensor param(const Tensor& t, const char* name)
    {
        t.requires_grad_().set_name(name);
        return t;
    }
};

// The op names of every node reachable from `t`'s grad_fn, each node once: the nodes a backward
// pass from `t` runs.
std::multiset<std::string> graph_node_names(const Tensor& t)
{
    std::multiset<std::string> names;
    std::set<const Node*> seen;
    std::vector<const Node*> stack = {t.grad_fn().get()};
    while (!stack.empty()) {
        const Node* node = stack.back();
        stack.pop_back();
        if (!seen.insert(node).second) continue;
        names.insert(node->name());
        for (const Edge& e : node->next_edges)
            if (e.valid()) stack.push_back(e.node.get());
    }
    return names;
}

std::vector<const Event*> events_of(const Trace& t, Phase phase)
{
    std::vector<const Event*> found;
    for (const Event& e : t.events())
        if (e.phase == phase) found.push_back(&e);
    return found;
}

}  // namespace

TEST_CASE("Trace::add numbers events from 1 and clear starts again")
{
    Trace t;
    t.add(op_event("add"));
    t.add(op_event("mul"));
    REQUIRE(t.events().size() == 2);
    CHECK(t.events()[0].seq == 1);
    CHECK(t.events()[1].seq == 2);
    CHECK(t.events()[1].op == "mul");
    t.clear();
    CHECK(t.events().empty());
    t.add(op_event("relu"));
    CHECK(t.events()[0].seq == 1);
}

TEST_CASE("TraceRecorder sets the current trace on its thread only, and recorders nest")
{
    CHECK(trace::current() == nullptr);
    Trace outer, inner;
    {
        TraceRecorder record_outer(outer);
        CHECK(trace::current() == &outer);
        {
            TraceRecorder record_inner(inner);
            CHECK(trace::current() == &inner);
            Trace* seen_by_other_thread = &inner;
            std::thread([&] { seen_by_other_thread = trace::current(); }).join();
            CHECK(seen_by_other_thread == nullptr);
        }
        CHECK(trace::current() == &outer);
    }
    CHECK(trace::current() == nullptr);
}

TEST_CASE("NestedScope marks inner regions, and scopes nest")
{
    CHECK(trace::at_top_level());
    {
        trace::NestedScope a;
        CHECK_FALSE(trace::at_top_level());
        {
            trace::NestedScope b;
            CHECK_FALSE(trace::at_top_level());
        }
        CHECK_FALSE(trace::at_top_level());
    }
    CHECK(trace::at_top_level());
}

TEST_CASE("phase and cache event names")
{
    CHECK(std::string(trace::phase_name(Phase::forward)) == "forward");
    CHECK(std::string(trace::phase_name(Phase::backward)) == "backward");
    CHECK(std::string(trace::cache_event_name(trace::CacheEvent::none)) == "none");
    CHECK(std::string(trace::cache_event_name(trace::CacheEvent::stored)) == "stored");
    CHECK(std::string(trace::cache_event_name(trace::CacheEvent::hit)) == "hit");
}

TEST_CASE("without a recorder nothing is traced and ops run as usual")
{
    const TinyMlp m;
    const Tensor loss = m.loss();
    loss.backward();
    CHECK(trace::current() == nullptr);
    CHECK(m.w1.grad().defined());
}

TEST_CASE("backward records one event per node that runs, with the gradients it received and produced")
{
    const TinyMlp m;
    const Tensor loss = m.loss();
    const std::multiset<std::string> nodes = graph_node_names(loss);
    // cross_entropy, two linears, relu, and one AccumulateGrad per parameter (x needs no gradient)
    CHECK(nodes.size() == 8);
    CHECK(nodes.count("AccumulateGrad") == 4);

    Trace t;
    {
        TraceRecorder record(t);
        loss.backward();
    }
    REQUIRE(t.events().size() == nodes.size());
    std::multiset<std::string> ran;
    std::map<std::uint64_t, std::uint64_t> made_by;  // gradient id -> seq of the event that made it
    for (const Event& e : t.events()) {
        INFO("event " << e.seq << ": " << e.op);
        ran.insert(e.op);
        CHECK(e.phase == Phase::backward);
        CHECK(e.device_type == "cpu");
        CHECK_FALSE(e.why.empty());
        REQUIRE(e.inputs.size() == 1);  // no gradient in this network arrives along two branches
        CHECK(e.inputs[0].dtype == f32);
        if (e.seq > 1) CHECK(made_by.count(e.inputs[0].id) == 1);  // each gradient comes from an earlier event
        for (const trace::TensorInfo& g : e.outputs) {
            CHECK(g.dtype == f32);
            CHECK(g.has_stats);
            made_by[g.id] = e.seq;
        }
    }
    CHECK(ran == nodes);

    // The first event starts from the seed: d(loss)/d(loss) = 1, a scalar.
    const Event& first = t.events().front();
    CHECK(first.op == "cross_entropy");
    CHECK(first.inputs[0].name == "gradient seed");
    CHECK(first.inputs[0].shape.empty());
    REQUIRE(first.outputs.size() == 1);  // the target gets no gradient
    CHECK(first.outputs[0].shape == Shape{4, 3});

    // linear(x, w1, b1) passes gradients to w1 and b1 only; relu(...) to its one input.
    std::map<std::string, std::vector<Shape>> produced;
    for (const Event& e : t.events())
        for (const trace::TensorInfo& g : e.outputs) produced[e.op].push_back(g.shape);
    CHECK(produced["relu"] == std::vector<Shape>{{4, 5}});

    // Each AccumulateGrad shows the .grad it wrote, named after its parameter.
    std::map<std::string, Shape> grads;
    for (const Event& e : t.events())
        if (e.op == "AccumulateGrad") {
            REQUIRE(e.outputs.size() == 1);
            grads[e.outputs[0].name] = e.outputs[0].shape;
        }
    CHECK(grads == std::map<std::string, Shape>{{"w1.grad", {5, 3}}, {"b1.grad", {5}}, {"w2.grad", {3, 5}}, {"b2.grad", {3}}});
    CHECK(trace::describe(m.w1.grad(), false).dtype == f32);
}

TEST_CASE("backward events show where a gradient changes dtype on its way back to an f32 weight")
{
    // Manual mixed precision: the weight stays f32, the matmul runs in bf16. The gradient is bf16
    // until it passes back through the cast, and w.grad is f32 like w.
    Generator gen(3);
    const Tensor x = randn({2, 3}, f32, gen);
    const Tensor w = randn({4, 3}, f32, gen);
    w.requires_grad_().set_name("w");
    const Tensor loss = sum(linear(x.to(bf16), w.to(bf16)));
    REQUIRE(loss.dtype() == bf16);

    Trace t;
    {
        TraceRecorder record(t);
        loss.backward();
    }
    std::vector<std::string> ops;
    for (const Event& e : t.events()) ops.push_back(e.op);
    CHECK(ops == std::vector<std::string>{"sum", "linear", "to", "AccumulateGrad"});
    REQUIRE(t.events().size() == 4);
    const Event& linear_bw = t.events()[1];
    REQUIRE(linear_bw.outputs.size() == 1);  // x needs no gradient
    CHECK(linear_bw.inputs[0].dtype == bf16);
    CHECK(linear_bw.outputs[0].dtype == bf16);
    const Event& cast_bw = t.events()[2];
    CHECK(cast_bw.inputs[0].dtype == bf16);
    REQUIRE(cast_bw.outputs.size() == 1);
    CHECK(cast_bw.outputs[0].dtype == f32);
    const Event& accumulate = t.events()[3];
    REQUIRE(accumulate.outputs.size() == 1);
    CHECK(accumulate.outputs[0].name == "w.grad");
    CHECK(accumulate.outputs[0].dtype == f32);
}

TEST_CASE("a gradient that reaches a node along two branches is listed once per branch")
{
    const Tensor w = tensor({1.0, 2.0});
    w.requires_grad_().set_name("w");
    const Tensor loss = sum(add(mul(w, 2.0), mul(w, 3.0)));
    Trace t;
    {
        TraceRecorder record(t);
        loss.backward();
    }
    REQUIRE_FALSE(t.events().empty());
    const Event& accumulate = t.events().back();
    CHECK(accumulate.op == "AccumulateGrad");
    CHECK(accumulate.inputs.size() == 2);
    CHECK(accumulate.why.find("sum of 2 branches") != std::string::npos);
}

// Needs the dispatcher to record forward events (dispatch/dispatch.h, amp/autocast_layer.cpp).
TEST_CASE("a recorded forward and backward of an MLP: forward events in op order, then backward")
{
    const TinyMlp m;
    Trace t;
    {
        TraceRecorder record(t);
        m.loss().backward();
    }
    const std::vector<const Event*> forward = events_of(t, Phase::forward);
    const std::vector<const Event*> backward = events_of(t, Phase::backward);
    std::vector<std::string> ops;
    for (const Event* e : forward) ops.push_back(e->op);
    // Ops run inside other ops (cross_entropy's log_softmax, backward formulas) are no events.
    CHECK(ops == std::vector<std::string>{"linear", "relu", "linear", "cross_entropy"});
    CHECK(backward.size() == 8);
    REQUIRE(forward.size() == 4);
    CHECK(forward.back()->seq < backward.front()->seq);

    const Event& first = *forward[0];
    REQUIRE(first.inputs.size() == 3);
    CHECK(first.inputs[0].name == "x");
    CHECK(first.inputs[1].name == "w1");
    CHECK(first.inputs[1].is_leaf);
    CHECK(first.inputs[1].requires_grad);
    CHECK(first.inputs[2].name == "b1");
    REQUIRE(first.outputs.size() == 1);
    CHECK(first.outputs[0].dtype == f32);
    CHECK(first.outputs[0].shape == Shape{4, 5});
    CHECK(first.outputs[0].has_stats);
    CHECK_FALSE(first.outputs[0].is_leaf);
    CHECK(first.policy.empty());  // autocast was off
    // Each op's tensor input is the output of the op before it.
    CHECK(forward[1]->inputs.at(0).id == first.outputs[0].id);
    CHECK(forward[3]->inputs.at(0).id == forward[2]->outputs.at(0).id);
    CHECK(forward[3]->outputs.at(0).shape.empty());  // the loss is a scalar
}
