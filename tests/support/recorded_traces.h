#pragma once
// Recorded traces that the trace graph's tests and the visualizer's tests share: each holds the
// tensors it names, the trace and its graph, as tinyamp-viz would have them.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include <tinyamp/tinyamp.h>
#include <tinyamp/trace/trace.h>
#include <tinyamp/trace/trace_graph.h>

namespace tinyamp::test {

struct RecordedTrace {
    trace::Trace trace;
    trace::TraceGraph graph;

    void build() { graph = trace::build_graph(trace); }

    /// Records `loss_of()` under bf16 autocast on the CPU, then its backward pass outside the
    /// region (as training code does), and builds the graph.
    template <class LossOf>
    void record_autocast_step(LossOf&& loss_of)
    {
        {
            trace::TraceRecorder record(trace);
            Tensor loss;
            {
                amp::autocast region("cpu");
                loss = loss_of();
            }
            loss.backward();
        }
        build();
    }

    /// The graph node of the event numbered `seq` (as printed: "#4"), or -1.
    int node_of_seq(std::uint64_t seq) const
    {
        for (std::size_t i = 0; i < trace.events().size(); ++i)
            if (trace.events()[i].seq == seq) return graph.node_of_event(i);
        return -1;
    }
    /// The node of an outside tensor ("t<id>"), or -1.
    int node_of_tensor(const Tensor& t) const { return graph.find(std::string("t").append(std::to_string(t.id()))); }
};

/// One step of nn::Linear(4, 3) under bf16 autocast, loss = sum(linear(x)):
///   #1 cast x f32→bf16   #2 cast weight (stored)   #3 cast bias (stored)   #4 linear   #5 sum
///   #6 sum backward   #7 linear backward (grads of weight and bias, bf16)   #8, #9 the casts'
///   backward (to f32)   #10, #11 AccumulateGrad into bias.grad and weight.grad
struct LinearBf16Step : RecordedTrace {
    nn::Linear layer{4, 3};
    Tensor x;

    LinearBf16Step()
    {
        Generator gen(21);
        x = randn({2, 4}, f32, gen).set_name("x");
        record_autocast_step([&] { return sum(layer.forward(x)); });
        REQUIRE(trace.events().size() == 11);
    }
};

/// sum(linear(linear(x, w1), w1)) under bf16 autocast: w1 is cast once (stored in the cast cache)
/// and the second linear's cast of it is a cache hit.
struct CastReuseStep : RecordedTrace {
    Tensor x, w1;

    explicit CastReuseStep(std::uint64_t seed)
    {
        Generator gen(seed);
        x = randn({2, 4}, f32, gen).set_name("x");
        w1 = randn({4, 4}, f32, gen).requires_grad_().set_name("w1");
        record_autocast_step([&] { return sum(linear(linear(x, w1), w1)); });
    }
};

/// sum(x * x) and its backward: mul's two inputs are the same tensor, so two edges join x's node
/// to mul's.
struct SquareStep : RecordedTrace {
    Tensor x = tensor({1.0, -2.0, 3.0}).requires_grad_().set_name("x");

    SquareStep()
    {
        {
            trace::TraceRecorder record(trace);
            sum(mul(x, x)).backward();
        }
        build();
    }
};

/// A deep MLP step under bf16 autocast: `layers` Linear + ReLU pairs, forward and backward, about
/// 12 graph nodes per layer.
struct DeepMlpStep : RecordedTrace {
    explicit DeepMlpStep(int layers)
    {
        Generator gen(5);
        const Tensor x = randn({4, 8}, f32, gen).set_name("x");
        nn::Sequential mlp;
        for (int i = 0; i < layers; ++i) {
            mlp.push_back(std::make_shared<nn::Linear>(8, 8));
            mlp.push_back(std::make_shared<nn::ReLU>());
        }
        record_autocast_step([&] { return sum(mlp.forward(x)); });
    }
};

/// A model of nested modules under bf16 autocast, run `passes` times in one region (gradient
/// accumulation: from the second pass on, the weights' casts are cache hits), then backward:
///   model = Sequential(0: Linear(4, 3), 1: ReLU, 2: Sequential(0: Linear(3, 2)))
///   loss = sum of sum(model(x)) over the passes
/// Its events ran in the modules "0", "1" and "2.0" ("2" has none of its own); the sums outside any.
struct NestedModulesStep : RecordedTrace {
    std::shared_ptr<nn::Sequential> model = std::make_shared<nn::Sequential>();
    Tensor x;

    explicit NestedModulesStep(int passes = 1)
    {
        manual_seed(3);
        auto inner = std::make_shared<nn::Sequential>();
        inner->emplace_back<nn::Linear>(3, 2);  // before `inner` joins the model, so its weight is labelled "2.0.weight"
        model->emplace_back<nn::Linear>(4, 3);
        model->emplace_back<nn::ReLU>();
        model->push_back(inner);
        Generator gen(8);
        x = randn({2, 4}, f32, gen).set_name("x");
        record_autocast_step([&] {
            Tensor loss;
            for (int i = 0; i < passes; ++i) {
                const Tensor part = sum((*model)(x));
                loss = loss.defined() ? add(loss, part) : part;
            }
            return loss;
        });
    }
};

}  // namespace tinyamp::test
