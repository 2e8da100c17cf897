// Lab 8: the cast cache. Fill in each TODO; check with:  build/lessons/lab_08
#include "lessons/08_cast_cache/lab.h"

#include "lessons/support/lab.h"

namespace tinyamp::lab08 {

CacheCounts count_cache_events(const trace::Trace& trace)
{
    // TODO(lab 08.1): for each event with e.is_cast, look at e.cache: trace::CacheEvent::stored,
    // ::hit or ::none. A hit converts nothing; stored and none both made a new tensor.
    // BEGIN SOLUTION
    CacheCounts c;
    for (const trace::Event& e : trace.events()) {
        if (!e.is_cast) continue;
        if (e.cache == trace::CacheEvent::hit) {
            ++c.hits;
            continue;
        }
        ++c.casts;
        if (e.cache == trace::CacheEvent::stored) ++c.stored;
    }
    return c;
    // END SOLUTION
}

int predict_weight_casts(int weights, int uses_per_step, int steps, bool region_per_step, bool cache_enabled)
{
    // TODO(lab 08.2): without the cache every use casts; with it, each weight is cast once per
    // region, because the cache empties when the (outermost) region ends.
    // BEGIN SOLUTION
    if (!cache_enabled) return weights * uses_per_step * steps;
    return region_per_step ? weights * steps : weights;
    // END SOLUTION
}

std::vector<double> train_linear(const Tensor& w, const Tensor& x, const Tensor& y, int steps, double lr)
{
    // TODO(lab 08.3): for each step open amp::autocast("cpu") around the forward and the loss only
    // (mse_loss(linear(x, w), y)), call backward() after it, then under NoGradGuard
    // w.copy_(sub(w, mul(w.grad(), lr))) and w.set_grad(Tensor()). Keep loss.item() of each step.
    // BEGIN SOLUTION
    std::vector<double> losses;
    for (int i = 0; i < steps; ++i) {
        Tensor loss;
        {
            amp::autocast region("cpu");
            loss = mse_loss(linear(x, w), y);
        }
        loss.backward();
        NoGradGuard no_grad;
        w.copy_(sub(w, mul(w.grad(), lr)));
        w.set_grad(Tensor());
        losses.push_back(loss.item());
    }
    return losses;
    // END SOLUTION
}

}  // namespace tinyamp::lab08
