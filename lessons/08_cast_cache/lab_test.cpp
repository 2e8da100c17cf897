// Lab 8's checks. Run them with:  build/lessons/lab_08
#include <doctest/doctest.h>

#include <string>

#include "lessons/08_cast_cache/lab.h"

using namespace tinyamp;
using namespace tinyamp::lab08;

namespace {

// Runs `steps` steps of a model whose `weights` weights are each used `uses` times per step, under
// bf16 autocast, and counts the weight casts that converted data, from the trace.
int measured_weight_casts(int weights, int uses, int steps, bool region_per_step, bool cache_enabled)
{
    std::vector<Tensor> ws;
    for (int i = 0; i < weights; ++i)
        ws.push_back(full({3, 3}, 0.1 * (i + 1)).requires_grad_().set_name(std::string(1, 'w').append(std::to_string(i))));
    const Tensor x = ones({2, 3});
    trace::Trace t;
    trace::TraceRecorder recorder(t);
    auto forward = [&] {
        for (int u = 0; u < uses; ++u)
            for (const Tensor& w : ws) linear(x, w);
    };
    if (region_per_step) {
        for (int s = 0; s < steps; ++s) {
            amp::autocast region("cpu", {.cache_enabled = cache_enabled});
            forward();
        }
    } else {
        amp::autocast region("cpu", {.cache_enabled = cache_enabled});
        for (int s = 0; s < steps; ++s) forward();
    }
    int casts = 0;
    for (const trace::Event& e : t.events())
        if (e.is_cast && e.inputs[0].name.rfind('w', 0) == 0 && e.cache != trace::CacheEvent::hit) ++casts;
    return casts;
}

}  // namespace

TEST_SUITE("lab08")
{
    TEST_CASE("lab 08.1: count_cache_events reads the cache's work from a trace")
    {
        const Tensor w = ones({4, 3}).requires_grad_(), x = ones({2, 3});
        trace::Trace t;
        {
            trace::TraceRecorder recorder(t);
            amp::autocast region("cpu");
            for (int i = 0; i < 5; ++i) linear(x, w);  // w: stored once, then 4 hits; x: cast 5 times
        }
        const CacheCounts c = count_cache_events(t);
        CHECK(c.stored == 1);
        CHECK(c.hits == 4);
        CHECK(c.casts == 6);  // w once, x five times
        trace::Trace off;
        {
            trace::TraceRecorder recorder(off);
            amp::autocast region("cpu", {.cache_enabled = false});
            for (int i = 0; i < 5; ++i) linear(x, w);
        }
        const CacheCounts d = count_cache_events(off);
        CHECK(d.stored == 0);
        CHECK(d.hits == 0);
        CHECK(d.casts == 10);
    }

    TEST_CASE("lab 08.2: predict_weight_casts matches what the trace measures")
    {
        CHECK(predict_weight_casts(2, 4, 1, true, true) == 2);    // the lesson's recurrent loop
        CHECK(predict_weight_casts(2, 4, 1, true, false) == 8);
        CHECK(predict_weight_casts(3, 2, 5, true, true) == 15);   // a new region each step casts again
        CHECK(predict_weight_casts(3, 2, 5, false, true) == 3);   // one region: cast once (and stale!)
        CHECK(predict_weight_casts(3, 2, 5, false, false) == 30);
        for (bool per_step : {true, false})
            for (bool cache : {true, false})
                CHECK(predict_weight_casts(2, 3, 2, per_step, cache) == measured_weight_casts(2, 3, 2, per_step, cache));
    }

    TEST_CASE("lab 08.3: one region per step, so every step sees the updated weights")
    {
        const Tensor x = tensor({1, 0, 0, 1, 1, 1, 2, 1}, {4, 2});
        const Tensor y = tensor({1, 2, 3, 4}, {4, 1});
        const Tensor w = zeros({1, 2}).requires_grad_();
        const std::vector<double> losses = train_linear(w, x, y, 4, 0.1);
        REQUIRE(losses.size() == 4);
        CHECK(losses[0] == doctest::Approx(7.5));  // w = 0: mean(1 + 4 + 9 + 16)
        CHECK(losses[1] < losses[0]);             // a region around the whole loop would repeat 7.5
        CHECK(losses[2] < losses[1]);
        CHECK(losses[3] < losses[2]);
        CHECK(w.dtype() == f32);
        CHECK(amp::autocast_cache_size() == 0);
    }
}
