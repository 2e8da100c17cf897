// Lab 08: the cast cache. Fill in each TODO; check with:  scripts/lab check 08
// Stuck? scripts/lab hint 08.1 gives a hint, a stronger one each time you ask.
#include "lessons/08_cast_cache/lab.h"

#include "lessons/support/lab.h"

namespace tinyamp::lab08 {

CacheCounts count_cache_events(const trace::Trace& trace)
{
    // TODO(lab 08.1): return what the autocast casts of `trace` say about the cache: how many
    // converted data, how many were stored, how many were hits (lab.h). Example: five linear(x, w)
    // in one bf16 region, w requiring grad and x not, give {casts 6, stored 1, hits 4}.
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
    // TODO(lab 08.2): return how many casts of weights convert data in the run lab.h describes.
    // Example: 3 weights used twice per step for 5 steps, cache on: 15 with a region per step, 3 with
    // one region around all the steps; cache off: 30 either way.
    // BEGIN SOLUTION
    if (!cache_enabled) return weights * uses_per_step * steps;
    return region_per_step ? weights * steps : weights;
    // END SOLUTION
}

std::vector<double> train_linear(const Tensor& w, const Tensor& x, const Tensor& y, int steps, double lr)
{
    // TODO(lab 08.3): train y ~ linear(x, w) with `steps` plain SGD steps (w -= lr * w.grad), each
    // step's forward and mse_loss in a bf16 CPU autocast region of its own (lab.h); return each
    // step's loss. Example: w = (0, 0), x rows (1, 0), (0, 1), (1, 1), (2, 1), y 1, 2, 3, 4, lr 0.1,
    // 4 steps: the first loss is 7.5 and each later one is lower.
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
