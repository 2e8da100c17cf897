#pragma once
// Lab 20: a small GPT in every precision. Write these in lab.cpp; check them with:  scripts/lab check 20
#include <cstdint>

#include <tinyamp/tinyamp.h>

namespace tinyamp::lab20 {

/// Where a tensor's values stand against f16's range.
struct F16Range {
    double max_abs = 0;      ///< the largest |x| among the finite values looked at (0 if none)
    double overflow = 0;     ///< of the finite values looked at, the share that become +-inf when cast to f16
    double flushed = 0;      ///< of the finite nonzero values looked at, the share that become 0 when cast to f16
    std::int64_t count = 0;  ///< the values looked at: all of x, or those where keep is true (finite or not)
};

/// The F16Range of `x` (any float dtype), looking only at the elements where `keep` is true when
/// it is given (a bool tensor that broadcasts to x's shape: for attention logits, the causal
/// mask). The shares come from the cast itself, so 65519 (which rounds to 65504) does not
/// overflow and 3e-8 (which rounds up to 2^-24) does not flush.
F16Range f16_range(const Tensor& x, const Tensor& keep = Tensor());

/// nanoGPT's CausalSelfAttention forward with its manual (composite) attention path, made safe for
/// f16 the way PyTorch users patch it: the logits and the softmax in f32. `attn` gives the layers
/// and sizes (c_attn, c_proj, embed_dim C, num_heads H, head_dim D); x is [B, T, C].
///
///     qkv = attn.c_attn(x)                                   [B, T, 3C], in the region's dtype
///     q, k, v = qkv.narrow(2, i*C, C).view(B, T, H, D).transpose(1, 2)   for i = 0, 1, 2: [B, H, T, D]
///     with autocast switched off (a nested amp::autocast with enabled = false):
///         logits = q.to(f32) k.to(f32)^T / sqrt(D), -inf where key j > query i, softmax in f32
///     y = probabilities cast to v's dtype, times v          [B, H, T, D]
///     return attn.c_proj(y.transpose(1, 2).reshape(B, T, C))
///
/// Lab 9.2 built the f32 island for one matrix of scores; here it sits inside a transformer layer,
/// with heads, the causal mask and autograd through all of it.
Tensor attention_with_f32_logits(nn::CausalSelfAttention& attn, const Tensor& x);

/// What f16 autocast does to one training step: `model` maps token indices [B, T] (i64) to logits
/// [B, T, vocab]; the loss is the mean cross-entropy against `targets` [B, T].
enum class Overflow {
    none,      ///< the loss and every parameter gradient are finite
    forward,   ///< the loss itself is inf or NaN: no loss scale can help (it multiplies the loss after)
    backward,  ///< the loss is finite but some parameter gradient of loss * scale is inf or NaN: a smaller scale helps
};

/// Runs the forward and the loss under amp::autocast("cpu", f16), then backward of loss * `scale`
/// (outside the region, as scaler.scale(loss).backward()), and says which Overflow it was. Leaves
/// the model's gradients cleared (model.zero_grad()).
Overflow where_f16_overflows(nn::Module& model, const Tensor& tokens, const Tensor& targets, double scale);

}  // namespace tinyamp::lab20
