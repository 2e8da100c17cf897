#pragma once
// Lab 18: per-tensor scaling, current vs delayed. Write these in lab.cpp; lab_test.cpp checks them
// (build/lessons/lab_18, or build/lessons/labs -ts=lab18).
#include <vector>

#include <tinyamp/tinyamp.h>

namespace tinyamp::lab18 {

/// Delayed scaling replayed for one E4M3 tensor: `amaxes[t]` is the amax of the tensor cast at
/// step t. Returns the scale each step casts with: 1 at the first step (no history yet), then the
/// scale computed after the step before from the largest amax of the last `history_len` steps,
/// (448 / amax) / 2^margin, the previous scale kept while that amax is 0.
std::vector<double> delayed_scales(const std::vector<float>& amaxes, int history_len, int margin = 0);

/// Of the nonzero elements of `x`, the share that become 0 when x * scale is cast to E4M3
/// (to_float8 with a 0-d f32 scale); 0 when x has no nonzero element.
double flushed_share(const Tensor& x, double scale);

/// One training step with every nn::Linear of `model` in FP8 by `recipe`: zero the gradients; the
/// forward and the cross-entropy loss inside amp::fp8_autocast; backward; optimizer step (plain:
/// the gradients are E5M2 with their own scale, no loss scaling needed). Returns the loss.
double fp8_train_step(nn::Module& model, optim::Optimizer& optimizer, const Tensor& features, const Tensor& labels,
                      const amp::ScalingRecipe& recipe);

}  // namespace tinyamp::lab18
