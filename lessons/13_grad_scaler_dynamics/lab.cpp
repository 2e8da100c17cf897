// Lab 13: GradScaler's dynamics. Fill in each TODO; check with:  scripts/lab check 13
// Stuck? scripts/lab hint 13.1 gives a hint, a stronger one each time you ask.
#include "lessons/13_grad_scaler_dynamics/lab.h"

#include <cmath>

#include "lessons/support/lab.h"

namespace tinyamp::lab13 {

std::vector<double> replay_scales(double init_scale, std::int64_t growth_interval, const std::vector<bool>& found_inf,
                                  double growth_factor, double backoff_factor)
{
    // TODO(lab 13.1): return the scale GradScaler holds after each update(), given whether each
    // iteration found an inf/NaN; the rule is in lab.h and in the lesson's README. The scale is an
    // f32 number. Example: init 65536, interval 3, found_inf {F, F, F, T, F} gives
    // {65536, 65536, 131072, 65536, 65536}.
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
    // TODO(lab 13.2): return how many of these updates followed a skipped optimizer step, knowing
    // only the scale before the first update and the scale after each one. Example: from 65536,
    // {65536, 32768, 32768, 65536, 32768} had 2 skipped steps.
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
    // TODO(lab 13.3): finish one AMP iteration whose backward already ran on the scaled loss:
    // clip the gradients of every parameter of `optimizer` to a total norm of max_norm, step
    // (which the scaler skips on inf/NaN) and update the scaler. Return the total norm of the
    // true gradients before clipping. Example: a true gradient (3, 4) under a scale of 1024
    // returns 5 and, with max_norm 1 and lr 1, moves the weights by (-0.6, -0.8).
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
