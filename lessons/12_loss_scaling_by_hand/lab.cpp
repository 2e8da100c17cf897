// Lab 12: loss scaling by hand. Fill in each TODO; check with:  scripts/lab check 12
// Stuck? scripts/lab hint 12.1 gives a hint, a stronger one each time you ask.
#include "lessons/12_loss_scaling_by_hand/lab.h"

#include <cmath>

#include "lessons/support/lab.h"

namespace tinyamp::lab12 {

Tensor scaled_backward(const Tensor& loss, double scale)
{
    // TODO(lab 12.1): run backward from loss * scale instead of from loss, so every gradient reaching a
    // leaf is `scale` times its true value; return the scaled loss, in the loss's dtype. Example: a
    // loss whose true gradient is 1e-9 (lost through an f16 cast) with scale 65536 leaves a gradient
    // of 6.55e-5 and returns 65536 * loss.
    // BEGIN SOLUTION
    Tensor scaled = mul(loss, scale);
    scaled.backward();
    return scaled;
    // END SOLUTION
}

bool unscale_and_check(const std::vector<Tensor>& params, double scale)
{
    // TODO(lab 12.2): unscale every gradient of `params` in place, as GradScaler::unscale_ does (times
    // the reciprocal of `scale` taken in f64 and rounded to f32), skipping parameters without one;
    // return whether any gradient held an inf or a NaN. Example: gradients {2048, 6} and {-1024}
    // with scale 1024 become {2, 0.005859375} and {-1}, and it returns false.
    // BEGIN SOLUTION
    const float inv_scale = float(1.0 / scale);  // as GradScaler: the reciprocal in f64, then f32
    NoGradGuard no_grad;
    bool found_inf = false;
    for (const Tensor& p : params) {
        const Tensor& g = p.grad();
        if (!g.defined()) continue;
        for (double v : g.to_vector())
            if (!std::isfinite(v)) found_inf = true;
        g.copy_(mul(g, double(inv_scale)));
    }
    return found_inf;
    // END SOLUTION
}

double pick_scale(double max_abs_grad)
{
    // TODO(lab 12.3): return the largest power of two S (which may be below 1) with
    // S * max_abs_grad <= 65504, f16's largest number; throw tinyamp::Error when max_abs_grad is not a
    // finite number > 0. Example: 1 gives 32768, 1e-3 gives 2^25, 1e5 gives 0.5, 0 throws.
    // BEGIN SOLUTION
    TINYAMP_CHECK(std::isfinite(max_abs_grad) && max_abs_grad > 0, value, "pick_scale: max_abs_grad must be finite and > 0, got ",
                  max_abs_grad);
    const double limit = traits(f16).max;
    int k = int(std::floor(std::log2(limit / max_abs_grad)));
    // log2 is rounded; make sure 2^k is the largest power that fits.
    while (std::ldexp(1.0, k) * max_abs_grad > limit) --k;
    while (std::ldexp(1.0, k + 1) * max_abs_grad <= limit) ++k;
    return std::ldexp(1.0, k);
    // END SOLUTION
}

}  // namespace tinyamp::lab12
