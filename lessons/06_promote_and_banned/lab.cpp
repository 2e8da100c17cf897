// Lab 06: promote and banned. Fill in each TODO; check with:  scripts/lab check 06
// Stuck? scripts/lab hint 06.1 gives a hint, a stronger one each time you ask.
#include "lessons/06_promote_and_banned/lab.h"

#include <string>

#include "lessons/support/lab.h"

namespace tinyamp::lab06 {

Tensor cat_under_autocast(const std::vector<Tensor>& parts)
{
    // TODO(lab 06.1): return the parts joined along dim 0 as cat does under bf16 CPU autocast: in
    // the widest dtype among them, never lower. Example: a bf16 [2, 3] part and an f32 [1, 3] part
    // give an f32 [3, 3] tensor (in either order); an f16 part next to a bf16 one throws tinyamp::Error.
    // BEGIN SOLUTION
    amp::autocast region("cpu");
    return cat(parts);
    // END SOLUTION
}

BceResult safe_bce(const Tensor& logits, const Tensor& targets)
{
    // TODO(lab 06.2): return the mean BCE loss of sigmoid(logits) against targets, computed by
    // binary_cross_entropy where the current autocast state allows it, and by
    // binary_cross_entropy_with_logits where autocast bans it; used_logits says which one ran. Any
    // other error reaches the caller. Example: logits {0, 0, 0, 0}, targets {1, 0, 1, 0} under the
    // CUDA table give {f32 log 2 = 0.693147, used_logits true}; under the CPU table {0.693147, false}.
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
    // TODO(lab 06.3): one plain SGD step (p -= lr * p.grad) of logistic regression on the f32
    // weights w and b, its forward and BCE-with-logits loss under bf16 CPU autocast (lab.h); return
    // the loss and leave both gradients cleared. Example: w = (0, 0), b = 0, x rows (1, 0), (1, 1),
    // (0, 0), (0, 1), targets 1, 1, 1, 0, lr 1: returns log 2 = 0.693147, then b = 0.25, w = (0.25, 0).
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
