#pragma once
// Lab 13: GradScaler's dynamics. Write these in lab.cpp; check them with:  scripts/lab check 13
#include <cstdint>
#include <vector>

#include <tinyamp/tinyamp.h>

namespace tinyamp::lab13 {

/// The scale after each update(), replayed by hand from whether each iteration found an inf/NaN
/// (PyTorch's _amp_update_scale_): on an overflow the scale is multiplied by backoff_factor and
/// the count of clean steps restarts at 0; otherwise the count goes up by one and, when it reaches
/// growth_interval, the scale is multiplied by growth_factor (unless that is inf as an f32 number)
/// and the count restarts. The scale is an f32 number.
std::vector<double> replay_scales(double init_scale, std::int64_t growth_interval, const std::vector<bool>& found_inf,
                                  double growth_factor = 2.0, double backoff_factor = 0.5);

/// How many optimizer steps a scaler skipped, known only from its scale before the first update
/// (init_scale) and get_scale() after each update(): the skips are the updates where it fell.
std::int64_t count_skipped(double init_scale, const std::vector<double>& scales_after_update);

/// The end of one AMP iteration with gradient clipping, called after scaler.scale(loss).backward():
/// unscale the optimizer's gradients, clip their total norm to max_norm, step (skipped by the
/// scaler on inf/NaN), update. Returns the total norm of the true (unscaled) gradients, before clipping.
double clip_and_step(amp::GradScaler& scaler, optim::Optimizer& optimizer, double max_norm);

}  // namespace tinyamp::lab13
