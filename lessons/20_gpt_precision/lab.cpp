// Lab 20: a small GPT in every precision. Fill in each TODO; check with:  build/lessons/lab_20
#include "lessons/20_gpt_precision/lab.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "lessons/support/lab.h"

namespace tinyamp::lab20 {

F16Range f16_range(const Tensor& x, const Tensor& keep)
{
    // TODO(lab 20.1): read x as doubles (x.to(f64).to_vector()) and as f16 would store it
    // (x.to(f16).to(f64).to_vector()); keep, when defined, as keep.expand(x.shape()).contiguous()
    // .to_vector() (1 = look at it). Count the values looked at; among the finite ones, those that
    // are finite in x and inf in the f16 copy (overflow), and those that are nonzero in x and 0 in
    // the copy (flushed, out of the finite nonzero ones). Track the largest finite |x|.
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
    // TODO(lab 20.2): qkv = (*attn.c_attn)(x); the heads as lab.h draws them (narrow, view,
    // transpose(1, 2)). Then, in a block holding amp::autocast off("cpu", {.enabled = false}):
    // mul(matmul(q.to(f32), k.to(f32).transpose(-2, -1)), 1 / sqrt(D)); masked_fill with
    // triu(ones({T, T}, DType::boolean), 1) and -INFINITY; softmax(.., -1). After it:
    // matmul(probs.to(v.dtype()), v), the heads side by side again, and (*attn.c_proj)(...).
    // Without the `off` block an outer f16 autocast casts your f32 matmul right back to f16.
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
    // TODO(lab 20.3): model.zero_grad(); in a block holding amp::autocast region("cpu", {.dtype = f16}):
    // logits = model(tokens), loss = cross_entropy(logits.reshape({-1, logits.size(-1)}), targets.reshape({-1})).
    // After the block: a non-finite loss.item() is Overflow::forward (stop there). Otherwise
    // mul(loss, scale).backward() and look at every parameter's grad(): any inf/NaN is
    // Overflow::backward. Clear the gradients before returning.
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
