// Lab 13: GradScaler's dynamics. Fill in each TODO; check with:  build/lessons/labs -ts=lab13
#include "lessons/13_grad_scaler_dynamics/lab.h"

#include <cmath>

#include "lessons/support/lab.h"

namespace tinyamp::lab13 {

std::vector<double> replay_scales(double init_scale, std::int64_t growth_interval, const std::vector<bool>& found_inf,
                                  double growth_factor, double backoff_factor)
{
    // TODO(lab 13.1): keep a float scale and an integer tracker (clean steps so far, from 0). For
    // each flag: overflow -> scale * backoff_factor, tracker 0; clean -> tracker + 1, and if that
    // equals growth_interval, scale * growth_factor (kept only if std::isfinite as a float) and
    // tracker 0. Push the scale after each flag.
    // Hint: float(double(scale) * growth_factor) is how GradScaler rounds; 2^128 is inf in f32.
    // BEGIN SOLUTION
    std::vector<double> scales;
    float scale = float(init_scale);
    std::int64_t tracker = 0;
    for (bool inf : found_inf) {
        if (inf) {
            scale = float(double(scale) * backoff_factor);
            tracker = 0;
        } else if (++tracker == growth_interval) {  // counted before the comparison, as PyTorch
            const float grown = float(double(scale) * growth_factor);
            if (std::isfinite(grown)) scale = grown;
            tracker = 0;
        }
        scales.push_back(double(scale));
    }
    return scales;
    // END SOLUTION
}

std::int64_t count_skipped(double init_scale, const std::vector<double>& scales_after_update)
{
    // TODO(lab 13.2): walk the scales, comparing each with the one before it (init_scale for the
    // first); count the updates where the scale went down: only a skipped step makes it fall.
    // BEGIN SOLUTION
    std::int64_t skipped = 0;
    double previous = init_scale;
    for (double scale : scales_after_update) {
        if (scale < previous) ++skipped;
        previous = scale;
    }
    return skipped;
    // END SOLUTION
}

double clip_and_step(amp::GradScaler& scaler, optim::Optimizer& optimizer, double max_norm)
{
    // TODO(lab 13.3): scaler.unscale_(optimizer) first, so the gradients are true ones; then
    // optim::clip_grad_norm_(params, max_norm) over every parameter of optimizer.param_groups();
    // then scaler.step(optimizer) and scaler.update(). Return the norm clip_grad_norm_ returned.
    // BEGIN SOLUTION
    scaler.unscale_(optimizer);
    std::vector<Tensor> params;
    for (const optim::ParamGroup& group : optimizer.param_groups()) params.insert(params.end(), group.params.begin(), group.params.end());
    const double norm = optim::clip_grad_norm_(params, max_norm);
    scaler.step(optimizer);  // does not unscale again: it uses the check unscale_ recorded
    scaler.update();
    return norm;
    // END SOLUTION
}

}  // namespace tinyamp::lab13
