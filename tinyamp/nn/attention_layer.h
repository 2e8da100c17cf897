#pragma once
/// \file
/// nn::CausalSelfAttention: multi-head causal self-attention as nanoGPT writes it.
///
/// One Linear c_attn makes queries, keys and values for all heads at once; each head attends to
/// the tokens before it (and itself); c_proj mixes the heads' outputs. The parameters are named
/// as nanoGPT's (c_attn.weight, c_attn.bias, c_proj.weight, c_proj.bias), so a state_dict moves
/// between the two.
///
/// \code
///     auto attn = std::make_shared<nn::CausalSelfAttention>(384, 6);
///     Tensor y = (*attn)(x);              // x [B, T, 384] -> y [B, T, 384]
///     attn->fused_attention = false;      // the same layer through the composite reference
/// \endcode

#include <cstdint>
#include <memory>

#include "tinyamp/nn/linear_layer.h"
#include "tinyamp/nn/module.h"

namespace tinyamp::nn {

/// Causal multi-head self-attention, as nanoGPT's CausalSelfAttention (without its dropout):
///
///     q, k, v = c_attn(x).split(embed_dim, dim=2)            # each [B, T, C]
///     q, k, v = each .view(B, T, num_heads, head_dim).transpose(1, 2)   # [B, heads, T, head_dim]
///     y = scaled_dot_product_attention(q, k, v, is_causal=True)
///     y = c_proj(y.transpose(1, 2).reshape(B, T, C))
///
/// Under autocast, c_attn, the attention and c_proj are all lower_precision_fp, so the whole
/// layer runs in the region's bf16/f16 with f32 master weights. The Linears keep PyTorch's
/// default init (nanoGPT re-initializes its weights at the model level).
class CausalSelfAttention : public Module {
public:
    /// c_attn: Linear(embed_dim, 3 * embed_dim, bias), c_proj: Linear(embed_dim, embed_dim, bias).
    /// Error(value) unless both are positive and num_heads divides embed_dim.
    CausalSelfAttention(std::int64_t embed_dim, std::int64_t num_heads, bool bias = true);

    /// \p input [B, T, embed_dim] (Error(shape) otherwise) to [B, T, embed_dim]: output t depends
    /// on inputs 0..t only. The attention is scaled_dot_product_attention(..., is_causal = true),
    /// or scaled_dot_product_attention_reference when fused_attention is false (ops/attention.h).
    Tensor forward(const Tensor& input) override;
    std::string type_name() const override { return "CausalSelfAttention"; }
    /// For inspection: the logits q k^T / sqrt(head_dim) [B, heads, T, T] that forward() feeds the
    /// softmax, before the causal mask, from the q and k this layer makes under the current
    /// autocast state (bf16/f16 in a region), multiplied in f64 (never cast by autocast, and every
    /// value representable). A composite attention stores these in the activations' dtype; the
    /// fused op keeps them in f32. Without autograd.
    Tensor attention_logits(const Tensor& input);

    const std::int64_t embed_dim;  ///< C, the size of each token's vector
    const std::int64_t num_heads;  ///< the number of heads
    const std::int64_t head_dim;   ///< embed_dim / num_heads
    /// true (the default): the fused op, logits in f32 for f16/bf16; false: the composite
    /// reference, every step an op in the activations' dtype (see ops/attention.h).
    bool fused_attention = true;
    std::shared_ptr<Linear> c_attn;  ///< [B, T, C] -> [B, T, 3C]: queries, keys and values
    std::shared_ptr<Linear> c_proj;  ///< [B, T, C] -> [B, T, C]: the output projection

private:
    void check_input(const Tensor& input) const;
    // Part i of c_attn's output (0 queries, 1 keys, 2 values) as [B, heads, T, head_dim]: a view.
    Tensor head_view(const Tensor& qkv, std::int64_t i) const;
};

}  // namespace tinyamp::nn
