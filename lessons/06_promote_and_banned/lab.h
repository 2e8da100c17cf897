#pragma once
// Lab 06: promote and banned. Write these in lab.cpp; check them with:  scripts/lab check 06
#include <tinyamp/tinyamp.h>

namespace tinyamp::lab06 {

/// cat(parts) along dim 0 inside a bf16 CPU autocast region (amp::autocast("cpu")): the result
/// has the widest dtype among the parts (promote). An f16 part next to a bf16 one throws
/// tinyamp::Error, as PyTorch does.
Tensor cat_under_autocast(const std::vector<Tensor>& parts);

/// What safe_bce computed, and how.
struct BceResult {
    Tensor loss;               ///< the mean loss
    bool used_logits = false;  ///< true when binary_cross_entropy was refused and the logits form ran instead
};

/// The BCE loss of `logits` against 0/1 `targets` (same shape), in the current autocast state:
/// first binary_cross_entropy(sigmoid(logits), targets); if autocast refuses that (the banned op:
/// an Error whose message names binary_cross_entropy_with_logits), binary_cross_entropy_with_logits.
BceResult safe_bce(const Tensor& logits, const Tensor& targets);

/// One training step of logistic regression, logits = linear(x, w, b) with w [1, d] and b [1]
/// f32 leaves that require grad, x [n, d] f32 and targets [n, 1] of 0/1: the forward and the
/// BCE-with-logits loss (mean) under bf16 CPU autocast, backward outside the region, then plain
/// SGD on the f32 weights (p -= lr * p.grad) and the gradients cleared. Returns the loss.
double bce_logits_step(const Tensor& w, const Tensor& b, const Tensor& x, const Tensor& targets, double lr);

}  // namespace tinyamp::lab06
