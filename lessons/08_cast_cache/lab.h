#pragma once
// Lab 08: the cast cache. Write these in lab.cpp; check them with:  scripts/lab check 08
#include <vector>

#include <tinyamp/tinyamp.h>

namespace tinyamp::lab08 {

/// What the cast events of a trace say about the cache.
struct CacheCounts {
    int casts = 0;   ///< autocast casts that converted data: every cast event except cache hits
    int stored = 0;  ///< cast events marked "cache stored"
    int hits = 0;    ///< cast events marked "cache hit" (no conversion, the cached tensor reused)
};

/// Counts the autocast cast events of `trace` (Event::is_cast) by their Event::cache.
CacheCounts count_cache_events(const trace::Trace& trace);

/// Predicts how many casts of weights convert data (stored or uncached, not hits) when a model
/// with `weights` f32 weights that require grad uses each of them `uses_per_step` times per
/// training step, for `steps` steps, under bf16 autocast. `region_per_step`: one region around
/// each step's forward (true) or one region around all the steps (false).
int predict_weight_casts(int weights, int uses_per_step, int steps, bool region_per_step, bool cache_enabled);

/// Trains y ~ linear(x, w) (mse_loss) for `steps` SGD steps of rate `lr` on the f32 leaf `w`,
/// the forward and loss of each step in its own bf16 region (so each step casts the updated
/// weights), backward after the region, the update under NoGradGuard. Returns each step's loss.
std::vector<double> train_linear(const Tensor& w, const Tensor& x, const Tensor& y, int steps, double lr);

}  // namespace tinyamp::lab08
