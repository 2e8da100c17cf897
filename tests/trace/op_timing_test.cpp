// trace::OpTimingRecorder: each piece of work timed once, where it enters the library (the
// dispatcher's top-level ops, the engine's backward nodes, an optimizer's step, clip_grad_norm_),
// and nothing recorded while no recorder is alive.
#include <doctest/doctest.h>

#include <string>

#include <tinyamp/tinyamp.h>

using namespace tinyamp;

namespace {

std::int64_t calls_of(const trace::OpTimes& times, const std::string& key)
{
    const auto it = times.by_key.find(key);
    return it == times.by_key.end() ? 0 : it->second.calls;
}

}  // namespace

TEST_CASE("op timing: forward ops, backward nodes and an optimizer step, each under its own key")
{
    manual_seed(0);
    nn::Linear fc(8, 4);
    optim::SGD sgd(fc.parameters(), optim::SGDOptions{.lr = 0.1});
    const Tensor x = randn({16, 8});
    trace::OpTimes times;
    {
        trace::OpTimingRecorder timing(times);
        for (int step = 0; step < 3; ++step) {
            sgd.zero_grad();
            const Tensor loss = sum(relu(fc(x)));
            loss.backward();
            sgd.step();
        }
    }
    CAPTURE(times.by_key.size());
    CHECK(calls_of(times, "linear") == 3);
    CHECK(calls_of(times, "relu") == 3);
    CHECK(calls_of(times, "sum") == 3);
    CHECK(calls_of(times, "linear backward") == 3);
    CHECK(calls_of(times, "relu backward") == 3);
    CHECK(calls_of(times, "SGD.step") == 3);
    // Work inside a timed piece is part of it: linear's backward computes with matmuls, which
    // would otherwise show up as keys of their own.
    CHECK(calls_of(times, "matmul") == 0);
    CHECK(calls_of(times, "mm") == 0);
    double sum_of_keys = 0;
    for (const auto& [key, time] : times.by_key) {
        CAPTURE(key);
        CHECK(time.seconds >= 0);
        sum_of_keys += time.seconds;
    }
    CHECK(times.total_seconds() == doctest::Approx(sum_of_keys));
    CHECK(times.by_key.at("linear").seconds > 0);
}

TEST_CASE("op timing: clip_grad_norm_ is one piece, its own ops inside it")
{
    const Tensor w = ones({4}).requires_grad_();
    sum(mul(w, w)).backward();
    trace::OpTimes times;
    {
        trace::OpTimingRecorder timing(times);
        optim::clip_grad_norm_({w}, 0.5);
    }
    CHECK(calls_of(times, "clip_grad_norm_") == 1);
    CHECK(times.by_key.size() == 1);  // not its mul and sum
}

TEST_CASE("op timing: nothing is recorded without a recorder, and the innermost recorder gets the times")
{
    const Tensor a = ones({2, 2});
    trace::OpTimes outer, inner;
    (void)add(a, a);  // no recorder yet
    {
        trace::OpTimingRecorder outer_timing(outer);
        (void)mul(a, a);
        {
            trace::OpTimingRecorder inner_timing(inner);
            (void)add(a, a);
        }
        (void)mul(a, a);
    }
    (void)add(a, a);  // none any more
    CHECK(calls_of(outer, "mul") == 2);
    CHECK(calls_of(outer, "add") == 0);
    CHECK(calls_of(inner, "add") == 1);
    CHECK(inner.by_key.size() == 1);
    CHECK_FALSE(trace::timing_ops());
}
