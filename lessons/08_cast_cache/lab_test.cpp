// Lab 08's checks. Run them with:  scripts/lab check 08
#include <string>

#include "lessons/08_cast_cache/lab.h"
#include "lessons/support/lab_checks.h"

using namespace tinyamp;
using namespace tinyamp::lab08;
using tinyamp::lesson::approx;

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
        LAB_CHECK("w's first cast is stored in the cache: 1 stored", c.stored == 1);
        LAB_CHECK("w's 4 later casts reuse the cached copy: 4 hits", c.hits == 4);
        LAB_CHECK("6 casts converted data: w once, x five times (x needs no grad, so it is never cached); a hit converts "
                  "nothing (mistake: counting cache hits as casts), and linear itself is no cast (mistake: counting every "
                  "event, not only the casts)",
                  c.casts == 6);
        trace::Trace off;
        {
            trace::TraceRecorder recorder(off);
            amp::autocast region("cpu", {.cache_enabled = false});
            for (int i = 0; i < 5; ++i) linear(x, w);
        }
        const CacheCounts d = count_cache_events(off);
        LAB_CHECK("cache_enabled = false: nothing is stored", d.stored == 0);
        LAB_CHECK("cache_enabled = false: nothing is reused", d.hits == 0);
        LAB_CHECK("cache_enabled = false: every use casts, w and x five times each (mistake: counting every event, not "
                  "only the casts)",
                  d.casts == 10);
    }

    TEST_CASE("lab 08.2: predict_weight_casts matches what the trace measures")
    {
        LAB_CHECK("the lesson's recurrent loop: 2 weights used 4 times in one region are cast once each",
                  predict_weight_casts(2, 4, 1, true, true) == 2);
        LAB_CHECK("without the cache every use casts: 2 weights x 4 uses",
                  predict_weight_casts(2, 4, 1, true, false) == 8);
        LAB_CHECK("a new region each step casts each weight again: 3 weights x 5 steps (mistake: forgetting that the "
                  "cache empties when the region ends)",
                  predict_weight_casts(3, 2, 5, true, true) == 15);
        LAB_CHECK("one region around all 5 steps casts each weight once (and the copies go stale as the weights change)",
                  predict_weight_casts(3, 2, 5, false, true) == 3);
        LAB_CHECK("one region but no cache: every use of every step casts, 3 x 2 x 5",
                  predict_weight_casts(3, 2, 5, false, false) == 30);
        for (bool per_step : {true, false})
            for (bool cache : {true, false}) {
                CAPTURE(per_step);
                CAPTURE(cache);
                LAB_CHECK("the prediction for 2 weights, 3 uses, 2 steps equals the casts a trace of that run counts",
                          predict_weight_casts(2, 3, 2, per_step, cache) == measured_weight_casts(2, 3, 2, per_step, cache));
            }
    }

    TEST_CASE("lab 08.3: one region per step, so every step sees the updated weights")
    {
        const Tensor x = tensor({1, 0, 0, 1, 1, 1, 2, 1}, {4, 2});
        const Tensor y = tensor({1, 2, 3, 4}, {4, 1});
        const Tensor w = zeros({1, 2}).requires_grad_();
        const std::vector<double> losses = train_linear(w, x, y, 4, 0.1);
        CAPTURE(losses);
        LAB_REQUIRE("train_linear returns one loss per step: 4 steps, 4 losses", losses.size() == 4);
        LAB_CHECK("w = 0 at the start: the loss is mean(1 + 4 + 9 + 16) = 7.5", losses[0] == doctest::Approx(7.5));
        LAB_CHECK("the second step sees the updated w, so its loss is lower; a region around the whole loop casts w once "
                  "and repeats 7.5 (mistake: one region around the whole loop)",
                  losses[1] < losses[0]);
        LAB_CHECK("every step improves on the weights the one before left", losses[2] < losses[1]);
        LAB_CHECK("every step improves on the weights the one before left", losses[3] < losses[2]);
        // The losses the solution gives, within 2%: the bf16 casts of w may round an ulp differently.
        LAB_CHECK("plain SGD from w = 0 with lr 0.1 gives losses of about 7.5, 2.968, 1.273, 0.634; a third loss far below "
                  "1.273 and a fourth above it mean each step added its gradient to the ones before (mistake: forgetting "
                  "to clear the gradient)",
                  losses == approx({7.5, 2.967884, 1.273041, 0.634277}, 2e-2));
        LAB_CHECK("the master weight stays f32: autocast casts a copy of it, never the weight", w.dtype() == f32);
        LAB_CHECK("each region ended with its step's forward: no cached casts are left behind", amp::autocast_cache_size() == 0);
    }
}
