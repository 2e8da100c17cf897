// Lab 12: loss scaling by hand. Fill in each TODO; check with:  build/lessons/labs -ts=lab12
#include "lessons/12_loss_scaling_by_hand/lab.h"

#include <cmath>

#include "lessons/support/lab.h"

namespace tinyamp::lab12 {

Tensor scaled_backward(const Tensor& loss, double scale)
{
    // TODO(lab 12.1): multiply the loss by `scale`, call backward() on the product, return it.
    // Hint: mul(loss, scale) keeps the loss's dtype (f32): a plain number does not promote it.
    // BEGIN SOLUTION
    Tensor scaled = mul(loss, scale);
    scaled.backward();
    return scaled;
    // END SOLUTION
}

bool unscale_and_check(const std::vector<Tensor>& params, double scale)
{
    // TODO(lab 12.2): for each parameter with a gradient (p.grad().defined()): note whether any
    // element is inf/NaN, then write grad * inv_scale back into it, where
    // inv_scale = float(1.0 / scale). Return whether any inf/NaN was found.
    // Hint: g.to_vector() and std::isfinite to look; g.copy_(mul(g, double(inv_scale))) to write,
    // inside a NoGradGuard (an update is not part of the graph).
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
    // TODO(lab 12.3): refuse a max_abs_grad that is not finite and > 0 (TINYAMP_CHECK(cond, value,
    // "message") throws tinyamp::Error), then return the largest power of two S with
    // S * max_abs_grad <= 65504.
    // Hint: traits(f16).max is 65504; std::floor(std::log2(q)) and std::ldexp(1.0, k) = 2^k.
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
