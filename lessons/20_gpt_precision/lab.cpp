// Lab 20: a small GPT in every precision. Fill in each TODO; check with:  scripts/lab check 20
// Stuck? scripts/lab hint 20.1 gives a hint, a stronger one each time you ask.
#include "lessons/20_gpt_precision/lab.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "lessons/support/lab.h"

namespace tinyamp::lab20 {

F16Range f16_range(const Tensor& x, const Tensor& keep)
{
    // TODO(lab 20.1): return where x's values stand against f16's range (F16Range, lab.h), looking
    // only where `keep` is true when it is given; the shares come from the f16 cast itself.
    // Example: {65504, 65519, 65520, -70000, 1, 3e-8, 2.9e-8, 0} gives count 8, max_abs 70000,
    // overflow 2/8 (65519 rounds down to 65504) and flushed 1/7 (3e-8 rounds up to 2^-24).
    // BEGIN SOLUTION
    const std::vector<double> values = x.to(f64).to_vector(), in_f16 = x.to(f16).to(f64).to_vector();
    const std::vector<double> looked = keep.defined() ? keep.expand(x.shape()).contiguous().to_vector() : std::vector<double>();
    F16Range r;
    double finite = 0, nonzero = 0, overflow = 0, flushed = 0;
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (!looked.empty() && looked[i] == 0) continue;
        ++r.count;
        if (!std::isfinite(values[i])) continue;
        ++finite;
        r.max_abs = std::max(r.max_abs, std::abs(values[i]));
        overflow += std::isinf(in_f16[i]) ? 1 : 0;
        if (values[i] != 0) {
            ++nonzero;
            flushed += in_f16[i] == 0 ? 1 : 0;
        }
    }
    r.overflow = finite == 0 ? 0 : overflow / finite;
    r.flushed = nonzero == 0 ? 0 : flushed / nonzero;
    return r;
    // END SOLUTION
}

Tensor attention_with_f32_logits(nn::CausalSelfAttention& attn, const Tensor& x)
{
    // TODO(lab 20.2): return the layer's causal self-attention of x (lab.h draws it) with the
    // attention logits and their softmax computed in f32, even inside an f16 autocast region; the
    // rest runs in the region's dtype. Example: in f32 it equals attn(x); under f16 autocast, with
    // logits past 65504, it stays finite where attn's composite path gives NaN.
    // BEGIN SOLUTION
    const std::int64_t B = x.size(0), T = x.size(1), C = attn.embed_dim, H = attn.num_heads, D = attn.head_dim;
    const Tensor qkv = (*attn.c_attn)(x);
    const auto head = [&](std::int64_t i) { return qkv.narrow(2, i * C, C).view({B, T, H, D}).transpose(1, 2); };
    const Tensor q = head(0), k = head(1), v = head(2);
    Tensor probs;
    {
        amp::autocast off("cpu", {.enabled = false});
        const Tensor logits = mul(matmul(q.to(f32), k.to(f32).transpose(-2, -1)), 1.0 / std::sqrt(double(D)));
        probs = softmax(masked_fill(logits, triu(ones({T, T}, DType::boolean), 1), -INFINITY), -1);
    }
    const Tensor y = matmul(probs.to(v.dtype()), v);
    return (*attn.c_proj)(y.transpose(1, 2).reshape({B, T, C}));
    // END SOLUTION
}

Overflow where_f16_overflows(nn::Module& model, const Tensor& tokens, const Tensor& targets, double scale)
{
    // TODO(lab 20.3): run the forward and the mean cross-entropy loss of `model` under f16 autocast
    // and the backward of loss * scale after it, and say which Overflow it was (lab.h); leave the
    // gradients cleared. Example: an ordinary model gives none at scale 65536 and backward at 1e30;
    // a model whose loss is already NaN gives forward at any scale.
    // BEGIN SOLUTION
    model.zero_grad();
    Tensor loss;
    {
        amp::autocast region("cpu", {.dtype = f16});
        const Tensor logits = model(tokens);
        loss = cross_entropy(logits.reshape({-1, logits.size(-1)}), targets.reshape({-1}));
    }
    if (!std::isfinite(loss.item())) {
        model.zero_grad();
        return Overflow::forward;
    }
    mul(loss, scale).backward();
    bool finite = true;
    for (const Tensor& p : model.parameters())
        if (p.grad().defined())
            for (double g : p.grad().to_vector()) finite = finite && std::isfinite(g);
    model.zero_grad();
    return finite ? Overflow::none : Overflow::backward;
    // END SOLUTION
}

}  // namespace tinyamp::lab20
