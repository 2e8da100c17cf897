// Lab 14: the AMP training loop, by hand. Fill in each TODO; check with:  build/lessons/lab_14
#include "lessons/14_training_run/lab.h"

#include "lessons/support/lab.h"

namespace tinyamp::lab14 {

StepResult amp_train_step(nn::Module& model, optim::Optimizer& optimizer, amp::GradScaler& scaler, const Tensor& features,
                          const Tensor& labels, DType low)
{
    // TODO(lab 14.1): the four lines of PyTorch's AMP loop. optimizer.zero_grad(); then, in a block
    // holding amp::autocast region("cpu", {.dtype = low}), loss = cross_entropy(model(features), labels);
    // after the block: scaler.scale(loss).backward(); stepped = scaler.step(optimizer); scaler.update().
    // Only the forward and the loss belong inside autocast; backward runs in the forward's dtypes anyway.
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
    // TODO(lab 14.2): evaluate like tools/train does. NoGradGuard (no graph), model.eval(), and when
    // `low` is set an amp::autocast("cpu", {.dtype = *low}) (std::optional<amp::autocast> + emplace).
    // Predictions are argmax(logits, 1); eq(predictions, labels) marks the right ones;
    // sum(..., f64).item() counts them. Put the model back with model.train() before returning.
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
    // TODO(lab 14.3): remember memory_stats().total.live_bytes, then reset_peak_memory_stats(); run
    // the forward and the loss (inside autocast when `low` is set) and keep the loss alive while you
    // read memory_stats().total.peak_bytes. The answer is that peak minus the live bytes before.
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
