#pragma once
// A character-level GPT (nanoGPT's model, small): token and position embeddings, n_layer blocks
// of pre-LayerNorm causal self-attention and a GELU MLP, a final LayerNorm and a Linear head.
//
//     logits = lm_head(ln_f(blocks(wte(idx) + wpe(0..T-1))))        idx [B, T] i64 -> [B, T, vocab]
//
// A probe (GptProbe) can be handed to forward() to record, per block, the quantities where low
// precision breaks first: the attention logits (q k^T / sqrt(d), before the softmax) and the
// activations leaving each sub-layer. tinyamp-train --model gpt reads them at every evaluation.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <tinyamp/tinyamp.h>

namespace tinyamp::train {

/// The sizes of the model. The defaults train on 2 CPU cores in minutes (docs/gpt_study.md).
struct GptConfig {
    std::int64_t vocab_size = 0;   ///< from the tokenizer
    std::int64_t block_size = 128; ///< the longest context (positions)
    std::int64_t n_layer = 4;
    std::int64_t n_head = 4;
    std::int64_t n_embd = 128;
    /// The standard deviation of the initial weights (nanoGPT: 0.02; the residual projections get
    /// init_std / sqrt(2 n_layer)). A larger value grows the attention logits: the study uses it
    /// to provoke f16's overflow on purpose.
    double init_std = 0.02;
    /// The std of the attention's input projection (c_attn: q, k and v) alone; 0 means init_std.
    /// q and k grow with it, and the logits q k^T / sqrt(d) with its square: the study's knob to
    /// push the logits past f16's 65504 without touching the rest of the model.
    double qkv_init_std = 0;
    /// true: the attention is scaled_dot_product_attention (logits and softmax in f32 inside, as
    /// FlashAttention); false: its composite reference (matmul, mask, softmax, matmul as separate
    /// ops, so under f16 autocast the logits are stored in f16).
    bool fused_attention = true;
};

/// Per block, the largest magnitudes and the shares of values outside f16's and bf16's ranges,
/// of one probed forward pass. "overflow" counts |x| above the format's largest finite value;
/// "underflow" counts nonzero values that round to zero in the format.
struct RangeStats {
    double max_abs = 0;
    double f16_overflow = 0;
    double f16_underflow = 0;
    double bf16_overflow = 0;
    double bf16_underflow = 0;
    std::int64_t count = 0;  ///< values looked at
    std::int64_t nonfinite = 0;  ///< inf or NaN among them
};

/// What GptProbe records for one block.
struct BlockStats {
    RangeStats attention_logits;  ///< q k^T / sqrt(head_dim) at the positions the causal mask keeps
    RangeStats activations;       ///< the outputs of attention, of the MLP's first layer, and of the block
};

/// Handed to Gpt::forward to record one BlockStats per block (in order).
struct GptProbe {
    std::vector<BlockStats> blocks;
};

/// RangeStats of the values of \p x (any float dtype, read as f64), optionally only where \p keep
/// (a bool tensor broadcastable to x) is true.
RangeStats range_stats(const Tensor& x, const Tensor& keep = Tensor());
/// Merges the counts of \p b into \p a (shares weighted by count).
void merge(RangeStats& a, const RangeStats& b);

/// One transformer block: x + attn(ln_1(x)), then x + mlp(ln_2(x)).
class GptBlock : public nn::Module {
public:
    explicit GptBlock(const GptConfig& config);
    Tensor forward(const Tensor& x) override;
    /// forward(), recording this block's statistics into \p stats when it is not null.
    Tensor forward_probed(const Tensor& x, BlockStats* stats);
    std::string type_name() const override { return "Block"; }

    std::shared_ptr<nn::LayerNorm> ln_1, ln_2;
    std::shared_ptr<nn::CausalSelfAttention> attn;
    std::shared_ptr<nn::Linear> c_fc, c_proj;  ///< the MLP: n_embd -> 4 n_embd -> GELU -> n_embd
};

/// The model. Its parameters are named as nanoGPT's (transformer.wte.weight, ...), except that
/// lm_head has its own weight (nanoGPT ties it to wte): shared parameters would be updated twice
/// by an optimizer that takes the list of parameters.
class Gpt : public nn::Module {
public:
    explicit Gpt(const GptConfig& config);
    /// Logits [B, T, vocab] of token indices [B, T] (i64, T <= block_size).
    Tensor forward(const Tensor& idx) override;
    /// forward(), recording per-block statistics into \p probe when it is not null.
    Tensor forward_probed(const Tensor& idx, GptProbe* probe);
    std::string type_name() const override { return "GPT"; }

    const GptConfig config;
    std::shared_ptr<nn::Embedding> wte, wpe;
    std::vector<std::shared_ptr<GptBlock>> blocks;
    std::shared_ptr<nn::LayerNorm> ln_f;
    std::shared_ptr<nn::Linear> lm_head;
};

}  // namespace tinyamp::train
