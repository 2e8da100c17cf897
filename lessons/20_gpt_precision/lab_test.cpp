// Lab 20's checks. Run them with:  scripts/lab check 20
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "lessons/20_gpt_precision/lab.h"
#include "lessons/support/lab_checks.h"
#include "lessons/support/tensor_distance.h"

using namespace tinyamp;
using namespace tinyamp::lab20;

namespace tinyamp::lab20 {

// How a failing check prints an Overflow (doctest prints enums as their number otherwise; it finds
// this overload by argument-dependent lookup).
doctest::String toString(Overflow overflow)
{
    switch (overflow) {
    case Overflow::none: return "Overflow::none";
    case Overflow::forward: return "Overflow::forward";
    case Overflow::backward: return "Overflow::backward";
    }
    return "Overflow(?)";
}

}  // namespace tinyamp::lab20

namespace {

// How many elements of t are inf or NaN.
std::int64_t non_finite(const Tensor& t)
{
    std::int64_t count = 0;
    for (double x : t.to_vector()) count += std::isfinite(x) ? 0 : 1;
    return count;
}

// Token indices [rows, cols] drawn from 0..vocab-1.
Tensor random_tokens(std::int64_t rows, std::int64_t cols, std::int64_t vocab, Generator& gen)
{
    std::vector<double> values;
    for (std::int64_t i = 0; i < rows * cols; ++i) values.push_back(double(gen.next_u64() % std::uint64_t(vocab)));
    return tensor(values, {rows, cols}, i64);
}

// A one-layer attention language model: embedding, causal self-attention, head. `qkv_std` > 0
// draws the attention's q/k/v projection from N(0, qkv_std) to grow its logits.
std::shared_ptr<nn::Sequential> attention_model(bool fused, double qkv_std)
{
    manual_seed(0);
    auto model = std::make_shared<nn::Sequential>();
    model->emplace_back<nn::Embedding>(12, 16);
    auto attention = model->emplace_back<nn::CausalSelfAttention>(16, 2);
    attention->fused_attention = fused;
    model->emplace_back<nn::Linear>(16, 12);
    if (qkv_std > 0) {
        NoGradGuard no_grad;
        attention->c_attn->weight.copy_(mul(randn(attention->c_attn->weight.shape()), qkv_std));
    }
    return model;
}

}  // namespace

TEST_SUITE("lab20")
{
    TEST_CASE("lab 20.1: f16_range counts what the f16 cast turns into inf and into 0")
    {
        const F16Range r = f16_range(tensor({65504.0, 65519.0, 65520.0, -70000.0, 1.0, 3e-8, 2.9e-8, 0.0}, {8}, f64));
        LAB_CHECK("all 8 values are looked at", r.count == 8);
        LAB_CHECK("the largest |x| is 70000: the sign does not count", r.max_abs == 70000.0);
        LAB_CHECK("65520 and -70000 become inf, but 65519 rounds down to 65504: 2 of 8 overflow (mistake: comparing with "
                  "65504 instead of casting)",
                  r.overflow == doctest::Approx(2.0 / 8));
        LAB_CHECK("2.9e-8 becomes 0, but 3e-8 rounds up to 2^-24: 1 of the 7 nonzero values flushes (0 was 0 already)",
                  r.flushed == doctest::Approx(1.0 / 7));
        const F16Range inf = f16_range(tensor({INFINITY, 1.0, 1e5}, {3}, f32));
        LAB_CHECK("inf is counted among the values looked at", inf.count == 3);
        LAB_CHECK("but not in the shares: of the 2 finite values, 1e5 overflows", inf.overflow == doctest::Approx(0.5));
        LAB_CHECK("the largest finite |x| is 1e5: inf is left out", inf.max_abs == 1e5);
        // The causal mask of 2 tokens: 1e5 sits above the diagonal.
        const Tensor logits = tensor({1.0, 1e5, -2.0, 3.0}, {2, 2}, f32);
        const F16Range kept = f16_range(logits, gt(tril(ones({2, 2})), 0.0));
        LAB_CHECK("the causal mask keeps 3 of the 4 logits", kept.count == 3);
        LAB_CHECK("1e5 above the diagonal is never looked at, so nothing overflows", kept.overflow == 0.0);
        LAB_CHECK("the largest |x| looked at is 3, not the hidden 1e5", kept.max_abs == 3.0);
        // A spread of magnitudes past both ends of f16's range.
        Generator gen(3);
        const Tensor x = exp(mul(randn({4096}, f32, gen), 12.0));
        const trace::ValueStats st = trace::compute_stats(x);
        const F16Range spread = f16_range(x);
        LAB_CHECK("the same overflow share as trace::compute_stats", spread.overflow == doctest::Approx(st.f16_overflow));
        LAB_CHECK("the same flushed share as trace::compute_stats", spread.flushed == doctest::Approx(st.f16_underflow));
        LAB_CHECK("the spread reaches past f16's max: more than 5 % overflow", spread.overflow > 0.05);
        LAB_CHECK("and below f16's smallest subnormal: more than 5 % flush", spread.flushed > 0.05);
    }

    TEST_CASE("lab 20.2: attention_with_f32_logits stays finite where the f16 composite attention does not")
    {
        manual_seed(0);
        nn::CausalSelfAttention attn(16, 2);
        Generator gen(0);
        const Tensor x = randn({2, 6, 16}, f32, gen);
        const Tensor y = attention_with_f32_logits(attn, x);
        LAB_CHECK("in f32 the output is f32", y.dtype() == f32);
        LAB_CHECK("in f32 it is the layer's own forward: the heads, the 1/sqrt(D) scaling, the causal mask and c_proj "
                  "(mistake: forgetting the causal mask)",
                  lesson::relative_difference(y, attn(x)) < 1e-5);
        // q and k grown until the logits pass 65504.
        {
            NoGradGuard no_grad;
            attn.c_attn->weight.copy_(mul(randn(attn.c_attn->weight.shape(), f32, gen), 40.0));
        }
        Tensor composite, fused, yours;
        {
            amp::autocast region("cpu", {.dtype = f16});  // yours must not let this region cast the logits back to f16
            attn.fused_attention = false;
            composite = attn(x);
            attn.fused_attention = true;
            fused = attn(x);
            yours = attention_with_f32_logits(attn, x);
        }
        LAB_CHECK("the set-up: logits past 65504 make the f16 composite attention inf/NaN", non_finite(composite) > 0);
        LAB_CHECK("the set-up: the fused op (f32 logits inside) stays finite", non_finite(fused) == 0);
        LAB_CHECK("under f16 autocast your output is f16: c_attn and c_proj run in the region", yours.dtype() == f16);
        LAB_CHECK("the logits and softmax in f32 stay finite (mistake: leaving autocast on around the f32 logits)",
                  non_finite(yours) == 0);
        LAB_CHECK("and within 1 % of the fused op (mistake: leaving autocast on around the f32 logits)",
                  lesson::relative_difference(yours, fused) < 0.01);
        // Tokens 2 to 6 changed: the first token's output must not move.
        Tensor changed = x.clone();
        {
            NoGradGuard no_grad;
            changed.narrow(1, 1, 5).copy_(zeros({2, 5, 16}));
        }
        LAB_CHECK("causal: the first token's output depends on the first token only (mistake: forgetting the causal mask)",
                  lesson::relative_difference(attention_with_f32_logits(attn, changed).select(1, 0),
                                              attention_with_f32_logits(attn, x).select(1, 0)) < 1e-6);
        // Backward through it, from under f16 autocast.
        const Tensor xl = x.detach().requires_grad_();
        Tensor out;
        {
            amp::autocast region("cpu", {.dtype = f16});
            out = attention_with_f32_logits(attn, xl);
        }
        sum(out.to(f32)).backward();
        LAB_CHECK("autograd reaches c_attn's f32 weight, with an f32 gradient", attn.c_attn->weight.grad().dtype() == f32);
        LAB_CHECK("c_attn's weight gradient is finite", non_finite(attn.c_attn->weight.grad()) == 0);
        LAB_CHECK("c_proj's weight gradient is finite", non_finite(attn.c_proj->weight.grad()) == 0);
        LAB_CHECK("the input's gradient is finite", non_finite(xl.grad()) == 0);
    }

    TEST_CASE("lab 20.3: where_f16_overflows tells a forward overflow (no scale helps) from a backward one")
    {
        Generator gen(1);
        const Tensor tokens = random_tokens(4, 10, 12, gen), targets = random_tokens(4, 10, 12, gen);
        auto plain = attention_model(false, 0);
        LAB_CHECK("an ordinary model: the default scale 65536 is fine",
                  where_f16_overflows(*plain, tokens, targets, 65536.0) == Overflow::none);
        LAB_CHECK("an ordinary model with a scale of 1e30: the loss is finite, the gradients of loss * 1e30 overflow "
                  "(mistake: backward of the unscaled loss)",
                  where_f16_overflows(*plain, tokens, targets, 1e30) == Overflow::backward);
        auto provoked = attention_model(false, 40.0);
        LAB_CHECK("provoked logits in the composite attention: the loss itself is NaN, a forward overflow (mistake: looking "
                  "only at the gradients, not at the loss first)",
                  where_f16_overflows(*provoked, tokens, targets, 65536.0) == Overflow::forward);
        LAB_CHECK("no scale helps a forward overflow, not even 1: the scale multiplies the loss after it is NaN (mistake: "
                  "looking only at the gradients, not at the loss first)",
                  where_f16_overflows(*provoked, tokens, targets, 1.0) == Overflow::forward);
        auto fused = attention_model(true, 40.0);
        LAB_CHECK("the same weights with the fused attention (f32 logits inside) are fine",
                  where_f16_overflows(*fused, tokens, targets, 1.0) == Overflow::none);
        std::int64_t left_with_grad = 0;
        for (const Tensor& p : plain->parameters()) left_with_grad += p.grad().defined() ? 1 : 0;
        LAB_CHECK("the gradients are left cleared: no parameter keeps a grad", left_with_grad == 0);
    }
}
