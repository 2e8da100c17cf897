#pragma once
// Lab 18: per-tensor scaling, current vs delayed. Write these in lab.cpp; check them with:  scripts/lab check 18
#include <vector>

#include <tinyamp/tinyamp.h>

namespace tinyamp::lab18 {

/// Delayed scaling replayed for one E4M3 tensor: `amaxes[t]` is the amax of the tensor cast at
/// step t. Returns the scale each step casts with: 1 at the first step (no history yet), then the
/// scale computed after the step before from the largest amax of the last `history_len` steps,
/// (448 / amax) / 2^margin, the previous scale kept while that amax is 0.
std::vector<double> delayed_scales(const std::vector<float>& amaxes, int history_len, int margin = 0);

/// The same replay for one operand of an FP8 layer under `recipe`, as Transformer Engine keeps one
/// history and scale per operand: the history length, margin and amax_compute_algo are the
/// recipe's, and the scale puts the amax on the max of the format the operand is cast to: E4M3
/// (448) for a forward operand (input, weight), and for a gradient (`gradient` true) the recipe's
/// gradient format: E5M2 (57344) under HYBRID, E4M3 under E4M3.
std::vector<double> delayed_scales(const std::vector<float>& amaxes, const amp::DelayedScaling& recipe, bool gradient);

/// Of the nonzero elements of `x`, the share that become 0 when x * scale is cast to E4M3
/// (to_float8 with a 0-d f32 scale); 0 when x has no nonzero element.
double flushed_share(const Tensor& x, double scale);

/// One training step with every nn::Linear of `model` in FP8 by `recipe`: zero the gradients; the
/// forward and the cross-entropy loss inside amp::fp8_autocast with `recipe`; backward after that
/// region has ended (Transformer Engine's rule: only the forward runs inside fp8_autocast);
/// optimizer step (plain: the gradients are cast with their own scale, no loss scaling needed).
/// Returns the loss.
double fp8_train_step(nn::Module& model, optim::Optimizer& optimizer, const Tensor& features, const Tensor& labels,
                      const amp::ScalingRecipe& recipe);

}  // namespace tinyamp::lab18
