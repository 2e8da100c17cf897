// Lab 20's checks. Run them with:  build/lessons/lab_20  (or build/lessons/labs -ts=lab20)
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "lessons/20_gpt_precision/lab.h"

using namespace tinyamp;
using namespace tinyamp::lab20;

namespace {

bool all_finite(const Tensor& t)
{
    for (double x : t.to_vector())
        if (!std::isfinite(x)) return false;
    return true;
}

// ||a - b|| / ||b||, in f64.
double relative(const Tensor& a, const Tensor& b)
{
    const std::vector<double> x = a.to_vector(), y = b.to_vector();
    double diff = 0, norm = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        diff += (x[i] - y[i]) * (x[i] - y[i]);
        norm += y[i] * y[i];
    }
    return std::sqrt(diff / norm);
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
        // 65519 rounds down to 65504; 65520 and -70000 become inf. 3e-8 rounds up to 2^-24; 2.9e-8 to 0.
        const F16Range r = f16_range(tensor({65504.0, 65519.0, 65520.0, -70000.0, 1.0, 3e-8, 2.9e-8, 0.0}, {8}, f64));
        CHECK(r.count == 8);
        CHECK(r.max_abs == 70000.0);
        CHECK(r.overflow == doctest::Approx(2.0 / 8));
        CHECK(r.flushed == doctest::Approx(1.0 / 7));  // of the 7 nonzero values
        // Non-finite values are counted but not in the shares.
        const F16Range inf = f16_range(tensor({INFINITY, 1.0, 1e5}, {3}, f32));
        CHECK(inf.count == 3);
        CHECK(inf.overflow == doctest::Approx(0.5));
        CHECK(inf.max_abs == 1e5);
        // The causal mask: 1e5 above the diagonal is never looked at.
        const Tensor logits = tensor({1.0, 1e5, -2.0, 3.0}, {2, 2}, f32);
        const F16Range kept = f16_range(logits, gt(tril(ones({2, 2})), 0.0));
        CHECK(kept.count == 3);
        CHECK(kept.overflow == 0.0);
        CHECK(kept.max_abs == 3.0);
        // The same shares as trace::compute_stats on a spread of magnitudes.
        Generator gen(3);
        const Tensor x = exp(mul(randn({4096}, f32, gen), 12.0));
        const trace::ValueStats st = trace::compute_stats(x);
        const F16Range spread = f16_range(x);
        CHECK(spread.overflow == doctest::Approx(st.f16_overflow));
        CHECK(spread.flushed == doctest::Approx(st.f16_underflow));
        CHECK(spread.overflow > 0.05);
        CHECK(spread.flushed > 0.05);
    }

    TEST_CASE("lab 20.2: attention_with_f32_logits stays finite where the f16 composite attention does not")
    {
        manual_seed(0);
        nn::CausalSelfAttention attn(16, 2);
        Generator gen(0);
        const Tensor x = randn({2, 6, 16}, f32, gen);
        // In f32 it is the layer's own forward.
        const Tensor y = attention_with_f32_logits(attn, x);
        CHECK(y.dtype() == f32);
        CHECK(relative(y, attn(x)) < 1e-5);
        // q and k grown until the logits pass 65504: under f16 autocast the composite attention is NaN,
        // yours stays finite and within 1 % of the fused op (f32 logits inside).
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
        CHECK_FALSE(all_finite(composite));
        CHECK(all_finite(fused));
        CHECK(yours.dtype() == f16);
        CHECK(all_finite(yours));
        CHECK(relative(yours, fused) < 0.01);
        // Causal: the first token's output depends on the first token only.
        Tensor changed = x.clone();
        {
            NoGradGuard no_grad;
            changed.narrow(1, 1, 5).copy_(zeros({2, 5, 16}));
        }
        CHECK(relative(attention_with_f32_logits(attn, changed).select(1, 0), attention_with_f32_logits(attn, x).select(1, 0)) < 1e-6);
        // Autograd reaches the weights and the input, finite, under f16 autocast.
        const Tensor xl = x.detach().requires_grad_();
        Tensor out;
        {
            amp::autocast region("cpu", {.dtype = f16});
            out = attention_with_f32_logits(attn, xl);
        }
        sum(out.to(f32)).backward();
        CHECK(attn.c_attn->weight.grad().dtype() == f32);
        CHECK(all_finite(attn.c_attn->weight.grad()));
        CHECK(all_finite(attn.c_proj->weight.grad()));
        CHECK(all_finite(xl.grad()));
    }

    TEST_CASE("lab 20.3: where_f16_overflows tells a forward overflow (no scale helps) from a backward one")
    {
        Generator gen(1);
        const Tensor tokens = random_tokens(4, 10, 12, gen), targets = random_tokens(4, 10, 12, gen);
        // An ordinary model: the default scale 65536 is fine; a scale of 1e30 overflows backward.
        auto plain = attention_model(false, 0);
        CHECK(where_f16_overflows(*plain, tokens, targets, 65536.0) == Overflow::none);
        CHECK(where_f16_overflows(*plain, tokens, targets, 1e30) == Overflow::backward);
        // Provoked logits in the composite attention: the loss is already NaN, at any scale.
        auto provoked = attention_model(false, 40.0);
        CHECK(where_f16_overflows(*provoked, tokens, targets, 65536.0) == Overflow::forward);
        CHECK(where_f16_overflows(*provoked, tokens, targets, 1.0) == Overflow::forward);
        // The same weights with the fused attention (f32 logits inside): fine.
        auto fused = attention_model(true, 40.0);
        CHECK(where_f16_overflows(*fused, tokens, targets, 1.0) == Overflow::none);
        // The gradients are left cleared.
        for (const Tensor& p : plain->parameters()) CHECK_FALSE(p.grad().defined());
    }
}
