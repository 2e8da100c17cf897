#pragma once
// Loss functions, as in torch.nn.functional. Each is one op (one graph node, named as its
// function, which is the name autocast's policy tables use). f16/bf16 inputs are computed in f32
// and the result is rounded once into the input's dtype; their gradients likewise.
//
//   Tensor loss = cross_entropy(logits, labels);  // logits [N, C], labels i64 [N]
//   loss.backward();

#include <cstdint>

#include "tinyamp/core/tensor.h"

namespace tinyamp {

/// What a loss does with the loss of each element (or each sample): returns them as they are,
/// averages them (the default) or adds them up.
enum class Reduction { none, mean, sum };
/// "none", "mean", "sum": PyTorch's reduction strings.
const char* reduction_name(Reduction reduction);

/// (input - target)^2. Both float and of the same shape (PyTorch broadcasts with a warning;
/// tinyamp refuses, since an [N, 1] input against an [N] target silently makes [N, N]).
/// Differentiable in input and target.
Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::mean);

/// -log_probs[n, target[n]]: the negative log likelihood of the true class. log_probs is [N, C]
/// (or [C] with a 0-D target), target holds i64 class indices in [0, C). Samples whose target is
/// ignore_index give 0 and are left out of the mean (which is NaN, as in PyTorch, when all are).
Tensor nll_loss(const Tensor& log_probs, const Tensor& target, Reduction reduction = Reduction::mean,
                std::int64_t ignore_index = -100);

/// nll_loss(log_softmax(logits), target) as one fused op, stable for any logits (the log-softmax
/// subtracts each row's maximum first); its gradient is softmax(logits) - onehot(target).
Tensor cross_entropy(const Tensor& logits, const Tensor& target, Reduction reduction = Reduction::mean,
                     std::int64_t ignore_index = -100);

/// -(t log p + (1 - t) log(1 - p)) for probabilities p in [0, 1] (anything else is an error) and
/// float targets t of the same shape. Each log is clamped at -100, as in PyTorch, so p = 0 or 1
/// gives 100 rather than inf. Under CUDA autocast PyTorch refuses this op: a sigmoid followed by
/// it loses precision in f16. Use binary_cross_entropy_with_logits.
Tensor binary_cross_entropy(const Tensor& probs, const Tensor& target, Reduction reduction = Reduction::mean);

/// binary_cross_entropy(sigmoid(logits), target) computed straight from the logits, in the stable
/// form max(x, 0) - x t + log(1 + exp(-|x|)). pos_weight (broadcast against the logits, e.g. one
/// per class [C]) weighs the positive term: -(pos_weight t log sigmoid(x) + (1 - t) log(1 - sigmoid(x))).
/// Differentiable in logits, target and pos_weight.
Tensor binary_cross_entropy_with_logits(const Tensor& logits, const Tensor& target, Reduction reduction = Reduction::mean,
                                        const Tensor& pos_weight = Tensor());

}  // namespace tinyamp
