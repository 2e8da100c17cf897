// Lab 14: the AMP training loop, by hand. Fill in each TODO; check with:  scripts/lab check 14
// Stuck? scripts/lab hint 14.1 gives a hint, a stronger one each time you ask.
#include "lessons/14_training_run/lab.h"

#include "lessons/support/lab.h"

namespace tinyamp::lab14 {

StepResult amp_train_step(nn::Module& model, optim::Optimizer& optimizer, amp::GradScaler& scaler, const Tensor& features,
                          const Tensor& labels, DType low)
{
    // TODO(lab 14.1): one AMP training step on this batch alone (no gradient left from an earlier
    // batch takes part): the forward and its cross-entropy loss under autocast on the CPU with dtype
    // `low`, backward of the loss scaled by `scaler`, then the scaler's step and update. Return the
    // unscaled loss and whether the optimizer stepped. Example: an untrained 3-class model returns a
    // loss near ln 3 = 1.1 (not 65536 times that) and stepped; a batch holding an inf returns
    // stepped = false and leaves the weights alone.
    // BEGIN SOLUTION
    optimizer.zero_grad();
    Tensor loss;
    {
        amp::autocast region("cpu", {.dtype = low});
        loss = cross_entropy(model(features), labels);
    }
    scaler.scale(loss).backward();
    const bool stepped = scaler.step(optimizer);
    scaler.update();
    return {loss.item(), stepped};
    // END SOLUTION
}

double accuracy(nn::Module& model, const Tensor& features, const Tensor& labels, std::optional<DType> low)
{
    // TODO(lab 14.2): return the share of samples whose largest logit is at their label, evaluated as
    // training/ does: no graph, the model in eval mode (and back in training mode afterwards), under
    // autocast on the CPU with `low` when it is given. Example: logits equal to the features
    // {{1, 0}, {0, 1}, {2, 1}, {0, 3}} with labels {0, 1, 1, 1} give 0.75.
    // BEGIN SOLUTION
    NoGradGuard no_grad;
    model.eval();
    double correct = 0;
    {
        std::optional<amp::autocast> region;
        if (low) region.emplace("cpu", amp::AutocastOptions{.dtype = *low});
        const Tensor logits = model(features);
        correct = sum(eq(argmax(logits, 1), labels), f64).item();
    }
    model.train();
    return correct / double(labels.size(0));
    // END SOLUTION
}

std::int64_t forward_peak_bytes(nn::Module& model, const Tensor& features, const Tensor& labels, std::optional<DType> low)
{
    // TODO(lab 14.3): return the most memory (bytes, all dtypes) that one forward and its
    // cross-entropy loss add on top of what was alive before the call, under autocast on the CPU with
    // `low` when it is given; a peak reached before the call does not count. Example: the 64-256-10
    // MLP on one sample adds under 38,420 bytes in f32, and at least that under bf16 (autocast's bf16
    // copies of its weights).
    // BEGIN SOLUTION
    const std::int64_t live_before = memory_stats().total.live_bytes;
    reset_peak_memory_stats();
    std::optional<amp::autocast> region;
    if (low) region.emplace("cpu", amp::AutocastOptions{.dtype = *low});
    const Tensor loss = cross_entropy(model(features), labels);
    return memory_stats().total.peak_bytes - live_before;
    // END SOLUTION
}

}  // namespace tinyamp::lab14
