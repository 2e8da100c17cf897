#include "tinyamp/optim/clip_grad.h"

#include <cmath>

#include "tinyamp/support/grad_mode.h"
#include "tinyamp/ops/elementwise.h"
#include "tinyamp/ops/reduce.h"
#include "tinyamp/trace/op_timing.h"

namespace tinyamp::optim {

double clip_grad_norm_(const std::vector<Tensor>& params, double max_norm, bool error_if_nonfinite)
{
    NoGradGuard no_grad;
    const trace::TimedPiece timed("clip_grad_norm_");  // its ops are part of it (trace/op_timing.h)
    double total = 0;
    for (const Tensor& p : params)
        if (p.grad().defined()) total += sum(mul(p.grad(), p.grad()), DType::f64).item();
    const double norm = std::sqrt(total);
    TINYAMP_CHECK(std::isfinite(norm) || !error_if_nonfinite, value, "clip_grad_norm_: the total norm of the gradients is ", norm,
                  "; pass error_if_nonfinite=false to clip anyway");
    const double coef = max_norm / (norm + 1e-6);
    // PyTorch multiplies by min(coef, 1) always; skipping the no-op factor 1 is the same, but a
    // NaN norm must still reach the gradients (NaN), as in PyTorch: hence !(coef >= 1), not coef < 1.
    if (!(coef >= 1.0))
        for (const Tensor& p : params)
            if (p.grad().defined()) p.grad().copy_(mul(p.grad(), coef));
    return norm;
}

}  // namespace tinyamp::optim
