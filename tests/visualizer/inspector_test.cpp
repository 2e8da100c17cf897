// The inspector's text, exactly as a student reads it: the limits of f16 and bf16, titles, rules
// and their meaning, the cast cache's sentence, gradients by name, and facts from the values.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "tests/support/expect_error.h"
#include "tests/support/recorded_traces.h"
#include "visualizer/model/inspector.h"

using namespace tinyamp;
using viz::inspect;
using viz::NodeDetails;

namespace {

bool has_fact(const NodeDetails& d, const std::string& fact) { return std::find(d.facts.begin(), d.facts.end(), fact) != d.facts.end(); }

std::string all_facts(const NodeDetails& d)
{
    std::string text;
    for (const std::string& f : d.facts) text.append(f).append(" | ");
    return text;
}

// One forward op whose output has the given statistics, as a trace with its graph.
struct OneOp : test::RecordedTrace {
    OneOp(trace::ValueStats stats, Shape shape = {8}, std::string policy = "")
    {
        trace::Event e;
        e.op = "relu";
        e.policy = std::move(policy);
        trace::TensorInfo out;
        out.id = 2;
        out.shape = std::move(shape);
        out.is_leaf = false;
        out.has_stats = true;
        out.stats = stats;
        e.outputs = {out};
        trace.add(e);
        build();
    }
    NodeDetails details() const { return inspect(trace, graph, 0); }
};

}  // namespace

TEST_CASE("format_limits gives f16's and bf16's range as exact powers of two")
{
    const viz::FormatLimits half = viz::format_limits(f16);
    CHECK(half.dtype == f16);
    CHECK(half.max == (2 - std::ldexp(1.0, -10)) * std::ldexp(1.0, 15));
    CHECK(half.max == 65504);
    CHECK(half.smallest_normal == std::ldexp(1.0, -14));
    CHECK(half.smallest_subnormal == std::ldexp(1.0, -24));
    const viz::FormatLimits brain = viz::format_limits(bf16);
    CHECK(brain.dtype == bf16);
    CHECK(brain.max == (2 - std::ldexp(1.0, -7)) * std::ldexp(1.0, 127));
    CHECK(brain.smallest_normal == std::ldexp(1.0, -126));
    CHECK(brain.smallest_subnormal == std::ldexp(1.0, -133));
    for (const DType d : {f32, f64, i64}) {
        const std::string message = test::error_message([&] { viz::format_limits(d); }, ErrorKind::dtype);
        CHECK(message.find("f16 or bf16") != std::string::npos);
    }
}

TEST_CASE("inspect: a parameter, its stored cast and the op, from a recorded bf16 Linear step")
{
    const test::LinearBf16Step step;
    const int weight = step.node_of_tensor(step.layer.weight);
    REQUIRE(weight >= 0);
    const NodeDetails w = inspect(step.trace, step.graph, weight);
    CHECK(w.title == "weight  (parameter)");
    CHECK(w.kind == trace::NodeKind::tensor);
    CHECK(w.policy.empty());
    CHECK_FALSE(w.has_values);
    REQUIRE(w.outputs.size() == 1);
    CHECK(w.outputs[0].dtype == f32);
    CHECK(has_fact(w, "the trace does not record parameters' values, only op outputs': select the cast or op that uses it to see its values"));

    const NodeDetails x = inspect(step.trace, step.graph, step.node_of_tensor(step.x));
    CHECK(x.title == "x  (input)");
    CHECK_FALSE(x.has_values);

    const NodeDetails cast = inspect(step.trace, step.graph, step.node_of_seq(2));
    CHECK(cast.kind == trace::NodeKind::cast);
    CHECK(cast.policy == "lower_precision_fp");
    CHECK(cast.why.find("cast weight f32\u2192bf16") != std::string::npos);
    CHECK(cast.cache ==
          "the cast cache stored this cast: weight is a leaf that requires grad (a weight), so its first bf16 copy is kept and reused by "
          "later ops in this autocast region");
    CHECK(cast.has_values);
    CHECK(cast.values.dtype == bf16);

    const NodeDetails linear = inspect(step.trace, step.graph, step.node_of_seq(4));
    CHECK(linear.policy == "lower_precision_fp");
    CHECK(linear.policy_meaning.find("low-precision") != std::string::npos);
    CHECK(linear.why == "linear is lower_precision_fp on cpu \u2192 runs in bf16");
    CHECK(linear.cache.empty());
    const NodeDetails sum = inspect(step.trace, step.graph, step.node_of_seq(5));
    CHECK(sum.policy == "not listed");
    CHECK(sum.policy_meaning.find("its inputs' dtypes") != std::string::npos);
    const NodeDetails sum_backward = inspect(step.trace, step.graph, step.node_of_seq(6));
    CHECK(sum_backward.title == "sum  (#6, backward)");
    CHECK(sum_backward.policy.empty());
    CHECK(sum_backward.policy_meaning.empty());
    CHECK(sum_backward.facts.front() == "produced 1 gradient: grad of linear's output (bf16 [2, 3])");
}

TEST_CASE("inspect: a cast the cache served names the tensor it reused")
{
    const test::CastReuseStep reuse(8);
    int hits = 0;
    for (std::size_t i = 0; i < reuse.graph.nodes.size(); ++i) {
        if (reuse.graph.nodes[i].cache != trace::CacheEvent::hit) continue;
        ++hits;
        const NodeDetails d = inspect(reuse.trace, reuse.graph, int(i));
        CHECK(d.cache == "the cast cache served this cast: w1 was cast once in this autocast region and reused");
        CHECK(d.title.find("cast f32\u2192bf16  (#") == 0);
    }
    CHECK(hits == 1);
}

TEST_CASE("inspect: each autocast rule has its own one-line meaning")
{
    std::set<std::string> meanings;
    for (const char* rule : {"lower_precision_fp", "fp32", "fp32_set_opt_dtype", "promote", "banned", "not listed"}) {
        const NodeDetails d = OneOp({}, {8}, rule).details();
        INFO(rule);
        CHECK(d.policy == rule);
        CHECK_FALSE(d.policy_meaning.empty());
        meanings.insert(d.policy_meaning);
    }
    CHECK(meanings.size() == 6);
    CHECK(OneOp({}, {8}, "").details().policy_meaning.empty());  // autocast was off
}

TEST_CASE("inspect: facts from the values (NaN and inf counts, zeros, the range, what f16 and bf16 would lose)")
{
    trace::ValueStats s;
    s.nans = 3.0 / 8;
    s.infs = 1.0 / 8;
    s.zeros = 1.0 / 8;
    s.min_abs = 1e-8;
    s.max_abs = 70000;
    s.f16_underflow = 0.125;
    s.f16_overflow = 1.0 / 3;
    const NodeDetails d = OneOp(s).details();
    CHECK(d.has_values);
    INFO(all_facts(d));
    CHECK(has_fact(d, "3 values are NaN"));
    CHECK(has_fact(d, "1 value is +-inf"));
    CHECK(has_fact(d, "12.5% of the values are exactly 0"));
    CHECK(has_fact(d, "|x| runs from 1e-08 to 70000 over the finite non-zero values"));
    CHECK(has_fact(d, "f16 would flush 12.5% of the non-zero values to 0"));
    CHECK(has_fact(d, "f16 would overflow 33.3% of the finite values to inf"));
    CHECK(std::none_of(d.facts.begin(), d.facts.end(), [](const std::string& f) { return f.rfind("bf16 would", 0) == 0; }));

    trace::ValueStats clean;
    clean.min_abs = clean.max_abs = 2;
    const NodeDetails ok = OneOp(clean).details();
    CHECK(has_fact(ok, "every finite non-zero value has |x| = 2"));
    CHECK(has_fact(ok, "f16 and bf16 both hold every finite value: none would flush to 0 or overflow"));
}

TEST_CASE("inspect: the range line speaks of the finite values, and of none when there are none")
{
    trace::ValueStats s;
    s.zeros = 0.25;
    s.min_abs = 2.24e-7;
    s.max_abs = 0.00151;
    CHECK(OneOp(s).details().value_range == "|x| from 2.24e-07 to 0.00151, zeros 25%");
    CHECK(OneOp(s).details().has_finite_values);
    CHECK(OneOp(s).details().headline.empty());  // every value finite: nothing to say first
    s.infs = 0.125;
    CHECK(OneOp(s).details().value_range == "finite |x| from 2.24e-07 to 0.00151, zeros 25%");

    trace::ValueStats all_nan;  // min_abs and max_abs stay 0: there is no finite value to measure
    all_nan.nans = 1;
    const NodeDetails nan = OneOp(all_nan, {4096}).details();
    CHECK(nan.value_range == "no finite values");
    CHECK_FALSE(nan.has_finite_values);
    INFO(all_facts(nan));
    CHECK(has_fact(nan, "4096 values are NaN"));
    CHECK(all_facts(nan).find("|x|") == std::string::npos);
    CHECK(all_facts(nan).find("would") == std::string::npos);  // nothing for f16 or bf16 to lose

    trace::ValueStats zeros;
    zeros.zeros = 1;
    CHECK(OneOp(zeros).details().value_range == "every finite value is 0");
}

namespace {

// A scaled backward pass that overflows f16, by hand: the loss (#1, f32), its gradient cast to
// f16 (#2, the cast's backward, where 1 of 10 values overflows to inf) and linear's backward (#3,
// whose every value is then NaN or inf).
struct OverflowingBackward : test::RecordedTrace {
    OverflowingBackward()
    {
        auto tensor_info = [](std::uint64_t id, DType dtype, Shape shape, trace::ValueStats stats) {
            trace::TensorInfo t;
            t.id = id;
            t.dtype = dtype;
            t.shape = std::move(shape);
            t.is_leaf = false;
            t.has_stats = true;
            t.stats = stats;
            return t;
        };
        trace::ValueStats finite;
        finite.min_abs = finite.max_abs = 2.3;
        trace::Event loss;
        loss.op = "cross_entropy";
        loss.outputs = {tensor_info(1, f32, {}, finite)};
        trace.add(loss);
        trace::ValueStats some_inf;
        some_inf.infs = 0.1;
        some_inf.min_abs = 46600;
        some_inf.max_abs = 58800;
        trace::Event cast_back;
        cast_back.phase = trace::Phase::backward;
        cast_back.op = "to";
        cast_back.inputs = {tensor_info(10, f32, {2, 5}, {})};
        cast_back.outputs = {tensor_info(11, f16, {2, 5}, some_inf)};
        trace.add(cast_back);
        trace::ValueStats all_bad;
        all_bad.nans = 0.75;
        all_bad.infs = 0.25;
        trace::Event linear;
        linear.phase = trace::Phase::backward;
        linear.op = "linear";
        linear.inputs = {cast_back.outputs[0]};
        linear.inputs[0].has_stats = false;
        linear.outputs = {tensor_info(12, f16, {2, 8}, all_bad)};
        trace.add(linear);
        build();
    }
};

}  // namespace

TEST_CASE("inspect: NaN or inf values are said first, with where they began and what the GradScaler did")
{
    const OverflowingBackward step;
    const viz::StepContext skipped{.loss_scaled = true, .step_skipped = true};
    const NodeDetails nan = inspect(step.trace, step.graph, step.node_of_seq(3), skipped);
    CHECK(nan.headline == "every value is NaN or inf: the scaled gradient overflowed f16 at the cast's backward (to, #2), so GradScaler skips this step");
    CHECK(nan.value_range == "no finite values");
    const NodeDetails origin = inspect(step.trace, step.graph, step.node_of_seq(2), skipped);
    CHECK(origin.headline == "1 of 10 values is inf: the scaled gradient overflowed f16 here, so GradScaler skips this step");
    CHECK(origin.value_range == "finite |x| from 46600 to 58800, zeros 0%");
    CHECK(inspect(step.trace, step.graph, step.node_of_seq(1), skipped).headline.empty());

    // From a trace file nothing says a GradScaler ran: the same values, without that cause.
    CHECK(inspect(step.trace, step.graph, step.node_of_seq(3)).headline ==
          "every value is NaN or inf: they come from the cast's backward (to, #2), the step's first event with a NaN or inf");
    CHECK(inspect(step.trace, step.graph, step.node_of_seq(2)).headline ==
          "1 of 10 values is inf: f16 overflowed here, a result beyond its largest value (65504) became inf");

    // An overflow in the forward pass: a loss scale cannot help it, and the headline says so.
    trace::ValueStats inf;
    inf.infs = 1;
    const NodeDetails forward = OneOp(inf, {3}).details();
    CHECK(forward.headline == "every value is inf: the step's first NaN or inf appears here, from finite inputs");
    const OneOp scaled(inf, {3});
    CHECK(inspect(scaled.trace, scaled.graph, 0, skipped).headline ==
          "every value is inf: the step's first NaN or inf appears here, from finite inputs, so GradScaler skips this step (a loss scale cannot "
          "prevent an overflow in the forward pass)");
}

TEST_CASE("inspect: shares print so that a tiny share never reads 0% and a near-total one never 100%")
{
    const auto bf16_overflow_fact = [](double share) {
        trace::ValueStats s;
        s.min_abs = 1;
        s.max_abs = 3e38;
        s.bf16_overflow = share;
        const NodeDetails d = OneOp(s).details();
        for (const std::string& f : d.facts)
            if (f.rfind("bf16 would overflow ", 0) == 0) return f;
        return std::string("(none)");
    };
    CHECK(bf16_overflow_fact(0.002) == "bf16 would overflow 0.2% of the finite values to inf");
    CHECK(bf16_overflow_fact(0.5) == "bf16 would overflow 50% of the finite values to inf");
    CHECK(bf16_overflow_fact(1.0) == "bf16 would overflow 100% of the finite values to inf");
    CHECK(bf16_overflow_fact(0.0004) == "bf16 would overflow 0.04% of the finite values to inf");
    CHECK(bf16_overflow_fact(0.000012) == "bf16 would overflow 0.0012% of the finite values to inf");
    CHECK(bf16_overflow_fact(1e-9) == "bf16 would overflow under 0.001% of the finite values to inf");
    CHECK(bf16_overflow_fact(0.99999) == "bf16 would overflow over 99.9% of the finite values to inf");
    CHECK(bf16_overflow_fact(0.0) == "(none)");
}

TEST_CASE("inspect: recorded values that f16 cannot hold")
{
    // 1e-8 flushes to 0 in f16, 70000 overflows; 3 finite non-zero values, 4 finite, one NaN.
    const Tensor x = tensor({1e-8, 70000.0, 0.5, 0.0, std::numeric_limits<double>::quiet_NaN()}).set_name("x");
    test::RecordedTrace recorded;
    {
        trace::TraceRecorder record(recorded.trace);
        (void)mul(x, 1.0);
    }
    recorded.build();
    const NodeDetails d = inspect(recorded.trace, recorded.graph, recorded.node_of_seq(1));
    INFO(all_facts(d));
    CHECK(d.values.dtype == f32);
    CHECK(d.values.stats.log2_abs.counts.size() > 1);
    CHECK(has_fact(d, "1 value is NaN"));
    CHECK(has_fact(d, "f16 would flush 33.3% of the non-zero values to 0"));
    CHECK(has_fact(d, "f16 would overflow 25% of the finite values to inf"));
}

TEST_CASE("inspect: the fused attention says that its logits and softmax stay in f32 inside it, forward and backward")
{
    // q, k, v [1, 2, 3, 4] under bf16 autocast: cast down, then one scaled_dot_product_attention.
    struct AttentionStep : test::RecordedTrace {
        AttentionStep()
        {
            Generator gen(4);
            const Tensor q = randn({1, 2, 3, 4}, f32, gen).requires_grad_().set_name("q");
            const Tensor k = randn({1, 2, 3, 4}, f32, gen).requires_grad_().set_name("k");
            const Tensor v = randn({1, 2, 3, 4}, f32, gen).requires_grad_().set_name("v");
            record_autocast_step([&] { return sum(scaled_dot_product_attention(q, k, v, Tensor(), 0.0, /*is_causal=*/true)); });
        }
    } step;
    const auto node_of = [&](trace::Phase phase) {
        for (std::size_t i = 0; i < step.trace.events().size(); ++i)
            if (step.trace.events()[i].op == "scaled_dot_product_attention" && step.trace.events()[i].phase == phase)
                return step.graph.node_of_event(i);
        return -1;
    };
    const NodeDetails forward = inspect(step.trace, step.graph, node_of(trace::Phase::forward));
    CHECK(forward.policy == "lower_precision_fp");
    CHECK(forward.outputs.at(0).dtype == bf16);
    CAPTURE(all_facts(forward));
    CHECK(all_facts(forward).find("computed in f32 inside this one op (as FlashAttention keeps them in registers) and only its output is "
                                  "rounded to bf16, so the logits never exist in bf16.") != std::string::npos);
    CHECK(all_facts(forward).find("65504") == std::string::npos);  // bf16's range is f32's

    const NodeDetails backward = inspect(step.trace, step.graph, node_of(trace::Phase::backward));
    CAPTURE(all_facts(backward));
    CHECK(all_facts(backward).find("saved each row's log-sum-exp, not the probabilities; from it this op recomputes the softmax in f32 "
                                   "(FlashAttention's recomputation), then rounds the gradients of q, k and v to their dtypes") !=
          std::string::npos);

    // Other ops have no such note.
    const test::LinearBf16Step linear;
    for (int node = 0; node < int(linear.graph.nodes.size()); ++node)
        CHECK(all_facts(inspect(linear.trace, linear.graph, node)).find("fused attention") == std::string::npos);
}

TEST_CASE("inspect: a collective says how its data left the rank, in which dtype and how many bytes")
{
    // DistributedDataParallel's bucket on rank 0 of 2: weight.grad (f32 [3, 16], 48 elements)
    // written by AccumulateGrad, sent as bf16 during backward, averaged back in f32.
    test::RecordedTrace t;
    trace::TensorInfo grad;
    grad.id = 5;
    grad.shape = {3, 16};
    grad.name = "weight.grad";
    grad.is_leaf = false;
    trace::Event accumulate;
    accumulate.phase = trace::Phase::backward;
    accumulate.op = "AccumulateGrad";
    accumulate.outputs = {grad};
    t.trace.add(accumulate);
    trace::Event reduce = accumulate;
    reduce.op = "all_reduce";
    reduce.inputs = {grad};
    grad.id = 6;
    grad.has_stats = true;
    reduce.outputs = {grad};
    reduce.why = "all_reduce_gradients: 1 gradient (weight) averaged over 2 ranks";
    reduce.collective = trace::Collective{.reduce_op = "SUM", .dtype = bf16, .bytes = 96, .world_size = 2, .rank = 0};
    t.trace.add(reduce);
    t.build();
    const NodeDetails d = inspect(t.trace, t.graph, t.node_of_seq(2));
    CHECK(d.title == "all_reduce  (#2, backward)");
    CHECK(d.kind == trace::NodeKind::collective);
    CHECK(d.collective == "all_reduce SUM in bf16, 96 bytes, rank 0 of 2");
    CHECK(d.why == reduce.why);
    INFO(all_facts(d));
    CHECK(has_fact(d, "rank 0 handed in 96 bytes: 48 bf16 elements"));
    CHECK(has_fact(d, "the f32 tensors left the rank as bf16 (2 bytes an element instead of 4) and came back written in f32"));
    CHECK(d.facts.size() == 4);  // and what a bf16 sum loses, and when backward sent it
    CHECK(all_facts(d).find("rounds at every step") != std::string::npos);
    CHECK(all_facts(d).find("during backward") != std::string::npos);
    CHECK(d.has_values);  // the averaged gradient's statistics
    // Other nodes have no collective line.
    CHECK(inspect(t.trace, t.graph, t.node_of_seq(1)).collective.empty());
}

TEST_CASE("inspect refuses a node outside the graph")
{
    const test::SquareStep step;
    for (const int node : {-1, int(step.graph.nodes.size())}) {
        const std::string message = test::error_message([&] { inspect(step.trace, step.graph, node); }, ErrorKind::index);
        CHECK(message.find("outside the graph") != std::string::npos);
    }
    const std::string other = test::error_message([&] { inspect(trace::Trace(), step.graph, step.node_of_seq(1)); }, ErrorKind::value);
    CHECK(other.find("the trace the graph was built from") != std::string::npos);
}
