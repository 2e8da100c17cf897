#pragma once
/// \file
/// Scaled dot-product attention, as torch.nn.functional.scaled_dot_product_attention, in two
/// implementations that a study can set side by side:
///
///   - scaled_dot_product_attention: one fused op. For f16/bf16 inputs it computes the logits
///     q·kᵀ·scale, the mask, the softmax and the weighted sum of the values in f32 and rounds
///     only the output to the input dtype, as FlashAttention keeps its logits in f32 registers;
///     f64 stays f64. Its backward recomputes the probabilities from the row's log-sum-exp
///     instead of keeping them (FlashAttention's recomputation), so it saves O(L) per row of
///     queries, not O(L·S).
///   - scaled_dot_product_attention_reference: the plain composition matmul(q, kᵀ) · scale →
///     mask (where/masked_fill with -inf, or add) → softmax → matmul with v, each step an ordinary
///     dispatched op in the input dtype (or in what autocast makes of it). Under f16 its logits are
///     rounded to f16 and overflow past 65504 to inf, and the softmax turns that into NaN.
///
/// Shapes (PyTorch's): query [..., L, E], key [..., S, E], value [..., S, Ev]; the leading
/// (batch) dims broadcast, and the output is [batch..., L, Ev]. `attn_mask` broadcasts to the
/// logits [batch..., L, S]: a bool mask says which keys take part (true = attend), a float mask
/// is added to the logits. `is_causal` masks key j for query i when j > i (the top-left
/// triangle, tril(ones(L, S))). `scale` defaults to 1/sqrt(E).
///
/// Autocast: scaled_dot_product_attention is lower_precision_fp in both PyTorch lists (CPU and
/// CUDA), so q, k, v and a float mask are cast to the region's bf16/f16 and the output has that
/// dtype. The reference is not an op of its own: each of its ops follows its own policy.
///
/// A row whose every key is masked: the fused op gives zeros there (output and gradients), as
/// PyTorch's math backend has since 2.5 (`_safe_softmax`) and its fused kernels; the reference
/// gives NaN (0/0 in its softmax), as the composition in PyTorch's documentation does.

#include <optional>

#include "tinyamp/tensor/tensor.h"

namespace tinyamp {

/// softmax(query · keyᵀ · scale + mask) · value, fused (see the top of this file).
///
/// \p query [..., L, E], \p key [..., S, E], \p value [..., S, Ev] share one float dtype (a
/// dtype Error otherwise; under autocast they are cast first); their batch dims broadcast (a
/// shape Error otherwise, as for mismatched E or S). \p attn_mask is undefined, bool (true =
/// take part) or a float mask in f32 or the query's dtype that is added to the logits; it
/// broadcasts to [batch..., L, S]. \p dropout_p must be 0 (a value Error otherwise: this op has
/// no dropout). \p is_causal together with an \p attn_mask is a value Error, as in PyTorch.
/// \p scale defaults to 1/sqrt(E).
///
/// The result is [batch..., L, Ev] in the inputs' dtype; for f16/bf16 inputs everything before
/// the output's one rounding is f32. Gradients go to query, key, value and a float mask, in
/// their own dtypes. Saved for backward: query, key, value, the mask, and the log-sum-exp of
/// each row of logits (f32, or f64 for f64 inputs): [batch..., L]. CPU only: CUDA tensors are a
/// device Error that names .cpu() and scaled_dot_product_attention_reference as the fixes.
Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value, const Tensor& attn_mask = Tensor(),
                                    double dropout_p = 0.0, bool is_causal = false, std::optional<double> scale = std::nullopt);

/// The same attention as a plain composition of dispatched ops, each in the input dtype:
/// `matmul(query, key.transpose(-2, -1)) * scale`, then the mask (`where(attn_mask, logits,
/// -inf)` for a bool mask, `add` for a float one, `masked_fill(logits, triu(ones(L, S), 1),
/// -inf)` for is_causal), `softmax` along the last dim, and `matmul` with value. The arguments,
/// their checks and the result's shape and dtype are those of scaled_dot_product_attention;
/// autograd differentiates each op. It rounds the logits to the input dtype (f16 overflows past
/// 65504) and gives NaN in rows where every key is masked. Its ops run wherever theirs do.
Tensor scaled_dot_product_attention_reference(const Tensor& query, const Tensor& key, const Tensor& value,
                                              const Tensor& attn_mask = Tensor(), double dropout_p = 0.0, bool is_causal = false,
                                              std::optional<double> scale = std::nullopt);

}  // namespace tinyamp
