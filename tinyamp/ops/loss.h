#pragma once
/// \file
/// Loss functions, as in torch.nn.functional: mse_loss, nll_loss, cross_entropy and the binary
/// cross entropies.
///
/// Each is one op (one graph node, named as its function, which is the name autocast's policy
/// tables use). f16/bf16 inputs are computed in f32 (f64 inputs in f64) and the result is rounded
/// once into the input's dtype (the promoted dtype where two float inputs differ); their
/// gradients likewise. Under autocast (CPU and CUDA) they run in f32 (policy fp32), except
/// binary_cross_entropy, which CUDA autocast refuses.
///
/// \code
/// Tensor loss = cross_entropy(logits, labels);  // logits [N, C], labels i64 [N]
/// loss.backward();
/// \endcode

#include <cstdint>

#include "tinyamp/tensor/tensor.h"

namespace tinyamp {

/// What a loss does with the loss of each element (or each sample): returns them as they are,
/// averages them (the default) or adds them up.
enum class Reduction { none, mean, sum };
/// \var Reduction::none
/// One loss per element (or per sample), unreduced; the shape of the elements (or samples).
/// \var Reduction::mean
/// The average, a 0-D tensor (the default).
/// \var Reduction::sum
/// The total, a 0-D tensor.

/// "none", "mean", "sum": PyTorch's reduction strings.
const char* reduction_name(Reduction reduction);

/// (input - target)^2, reduced as asked (torch.nn.functional.mse_loss).
///
/// Both must be float and of the same shape (PyTorch broadcasts with a warning; tinyamp refuses,
/// since an [N, 1] input against an [N] target silently makes [N, N]). The result has the dtype
/// they promote to, computed in f32 for f16/bf16. Differentiable in input and target.
/// Throws a dtype Error for a non-float tensor and a shape Error for shapes that differ.
Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::mean);

/// -log_probs[n, target[n]]: the negative log likelihood of the true class
/// (torch.nn.functional.nll_loss).
///
/// log_probs is float [N, C] (or [C] with a 0-D target), target holds i64 class indices in
/// [0, C). Samples whose target is ignore_index give 0 and are left out of the mean (which is
/// NaN, as in PyTorch, when all are). The result has log_probs' dtype.
/// Throws a dtype Error for a non-float input or non-i64 target, a shape Error for other ranks or
/// a target shape that does not fit, and an index Error for a target out of range.
Tensor nll_loss(const Tensor& log_probs, const Tensor& target, Reduction reduction = Reduction::mean,
                std::int64_t ignore_index = -100);

/// nll_loss(log_softmax(logits), target) as one fused op (torch.nn.functional.cross_entropy).
///
/// Stable for any logits (the log-softmax subtracts each row's maximum first); its gradient is
/// softmax(logits) - onehot(target). Shapes, targets, ignore_index and errors as nll_loss; the
/// result has the logits' dtype. Class probabilities as targets are not supported.
Tensor cross_entropy(const Tensor& logits, const Tensor& target, Reduction reduction = Reduction::mean,
                     std::int64_t ignore_index = -100);

/// -(t log p + (1 - t) log(1 - p)) (torch.nn.functional.binary_cross_entropy).
///
/// For probabilities p in [0, 1] (anything else is a value Error) and float targets t of the same
/// shape; the result has their promoted dtype. Each log is clamped at -100, as in PyTorch, so
/// p = 0 or 1 gives 100 rather than inf. CPU only. Under CUDA autocast PyTorch refuses this op
/// (a state Error here): a sigmoid followed by it loses precision in f16. Use
/// binary_cross_entropy_with_logits.
Tensor binary_cross_entropy(const Tensor& probs, const Tensor& target, Reduction reduction = Reduction::mean);

/// binary_cross_entropy(sigmoid(logits), target) computed straight from the logits
/// (torch.nn.functional.binary_cross_entropy_with_logits).
///
/// It uses the stable form max(x, 0) - x t + log(1 + exp(-|x|)). pos_weight (float, broadcast
/// against the logits, e.g. one per class [C]) weighs the positive term:
/// -(pos_weight t log sigmoid(x) + (1 - t) log(1 - sigmoid(x))). The result has the promoted dtype
/// of logits, target (and pos_weight). Differentiable in logits, target and pos_weight. CPU only.
/// Throws a dtype Error for non-float tensors and a shape Error for a target of another shape or
/// a pos_weight that does not broadcast.
Tensor binary_cross_entropy_with_logits(const Tensor& logits, const Tensor& target, Reduction reduction = Reduction::mean,
                                        const Tensor& pos_weight = Tensor());

}  // namespace tinyamp
