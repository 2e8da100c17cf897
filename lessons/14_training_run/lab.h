#pragma once
// Lab 14: the AMP training loop, by hand. Write these in lab.cpp; check them with:  scripts/lab check 14
#include <cstdint>
#include <optional>

#include <tinyamp/tinyamp.h>

namespace tinyamp::lab14 {

struct StepResult {
    double loss = 0;       ///< the unscaled loss of the batch
    bool stepped = false;  ///< false when the scaler skipped the optimizer step (inf/NaN gradients)
};

/// One AMP training step on one batch: zero the gradients; forward and cross-entropy loss inside
/// amp::autocast("cpu") with dtype `low`; backward of the scaled loss; scaler.step; scaler.update.
StepResult amp_train_step(nn::Module& model, optim::Optimizer& optimizer, amp::GradScaler& scaler, const Tensor& features,
                          const Tensor& labels, DType low);

/// The share of samples whose largest logit is at their label, in [0, 1]: no gradients, eval mode
/// (the model goes back to training mode afterwards), inside autocast("cpu") with `low` when given.
double accuracy(nn::Module& model, const Tensor& features, const Tensor& labels, std::optional<DType> low = std::nullopt);

/// The most memory (bytes, all dtypes) that one forward pass and its cross-entropy loss add on top
/// of what was alive before, read from memory_stats(); inside autocast("cpu") with `low` when given.
std::int64_t forward_peak_bytes(nn::Module& model, const Tensor& features, const Tensor& labels,
                                std::optional<DType> low = std::nullopt);

}  // namespace tinyamp::lab14
