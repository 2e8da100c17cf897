// Lab 6: promote and banned. Fill in each TODO; check with:  build/lessons/lab_06
#include "lessons/06_promote_and_banned/lab.h"

#include <string>

#include "lessons/support/lab.h"

namespace tinyamp::lab06 {

Tensor cat_under_autocast(const std::vector<Tensor>& parts)
{
    // TODO(lab 06.1): open a bf16 autocast region on the CPU and cat the parts inside it.
    // Hint: amp::autocast region("cpu"); then cat(parts). The promote rule does the rest.
    // BEGIN SOLUTION
    amp::autocast region("cpu");
    return cat(parts);
    // END SOLUTION
}

BceResult safe_bce(const Tensor& logits, const Tensor& targets)
{
    // TODO(lab 06.2): try binary_cross_entropy(sigmoid(logits), targets); catch the tinyamp::Error
    // that a banned op throws and fall back to binary_cross_entropy_with_logits(logits, targets).
    // Hint: catch (const Error& e) and look for "binary_cross_entropy_with_logits" in e.message();
    // rethrow (throw;) any other error.
    // BEGIN SOLUTION
    try {
        return {binary_cross_entropy(sigmoid(logits), targets), false};
    } catch (const Error& e) {
        if (e.message().find("binary_cross_entropy_with_logits") == std::string::npos) throw;
    }
    return {binary_cross_entropy_with_logits(logits, targets), true};
    // END SOLUTION
}

double bce_logits_step(const Tensor& w, const Tensor& b, const Tensor& x, const Tensor& targets, double lr)
{
    // TODO(lab 06.3): forward + loss inside amp::autocast("cpu"), loss.backward() after the region,
    // then update w and b under NoGradGuard: p.copy_(sub(p, mul(p.grad(), lr))), and clear the
    // gradients with p.set_grad(Tensor()).
    // BEGIN SOLUTION
    Tensor loss;
    {
        amp::autocast region("cpu");
        loss = binary_cross_entropy_with_logits(linear(x, w, b), targets);
    }
    loss.backward();
    NoGradGuard no_grad;
    for (const Tensor& p : {w, b}) {
        p.copy_(sub(p, mul(p.grad(), lr)));
        p.set_grad(Tensor());
    }
    return loss.item();
    // END SOLUTION
}

}  // namespace tinyamp::lab06
