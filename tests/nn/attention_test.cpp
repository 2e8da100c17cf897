// nn::CausalSelfAttention: nanoGPT's parameter names and shapes; output t depends only on inputs
// 0..t; every parameter gets a gradient; the fused op and the composite reference agree (f64
// tightly, f32 within its tolerance, and under bf16 autocast); f64 gradients of a tiny layer by
// gradcheck; errors.
#include <doctest/doctest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <tinyamp/tinyamp.h>

#include "tests/support/expect_error.h"
#include "tests/support/tolerance.h"

using namespace tinyamp;
using tinyamp::test::check_close;
using tinyamp::test::error_message;
using tinyamp::test::ulps_for;

TEST_CASE("nn::CausalSelfAttention has nanoGPT's parameters: c_attn [3C, C] and c_proj [C, C], with biases")
{
    manual_seed(0);
    nn::CausalSelfAttention attn(12, 3);
    CHECK(attn.embed_dim == 12);
    CHECK(attn.num_heads == 3);
    CHECK(attn.head_dim == 4);
    CHECK(attn.fused_attention);
    const nn::NamedTensors params = attn.named_parameters();
    REQUIRE(params.size() == 4);
    const std::vector<std::pair<std::string, Shape>> expected = {
        {"c_attn.weight", {36, 12}}, {"c_attn.bias", {36}}, {"c_proj.weight", {12, 12}}, {"c_proj.bias", {12}}};
    for (std::size_t i = 0; i < expected.size(); ++i) {
        CHECK(params[i].first == expected[i].first);
        CHECK(params[i].second.shape() == expected[i].second);
    }
    CHECK(attn.state_dict().size() == 4);
    CHECK(attn.to_string() ==
          "CausalSelfAttention(\n  (c_attn): Linear(in_features=12, out_features=36, bias=True)\n"
          "  (c_proj): Linear(in_features=12, out_features=12, bias=True)\n)");
    nn::CausalSelfAttention no_bias(12, 3, false);
    CHECK(no_bias.named_parameters().size() == 2);
    const Tensor x = randn({2, 5, 12});
    CHECK(attn(x).shape() == Shape{2, 5, 12});
    CHECK(attn(randn({1, 1, 12})).shape() == Shape{1, 1, 12});
}

TEST_CASE("nn::CausalSelfAttention is causal: changing token t changes outputs t.. only, in both implementations")
{
    manual_seed(1);
    nn::CausalSelfAttention attn(8, 2);
    Generator gen(2);
    const Tensor x = randn({2, 6, 8}, f32, gen);
    Tensor changed = x.clone();
    for (std::int64_t c = 0; c < 8; ++c) changed.set({1, 3, c}, 5.0);
    for (bool fused : {true, false}) {
        INFO(std::string(fused ? "fused" : "reference"));
        attn.fused_attention = fused;
        const Tensor y = attn(x), y2 = attn(changed);
        for (std::int64_t t = 0; t < 6; ++t) {
            INFO("token " << t);
            CHECK(y.select(0, 0).select(0, t).to_vector() == y2.select(0, 0).select(0, t).to_vector());  // the other sequence
            const bool same = y.select(0, 1).select(0, t).to_vector() == y2.select(0, 1).select(0, t).to_vector();
            CHECK(same == (t < 3));
        }
    }
}

TEST_CASE("nn::CausalSelfAttention: every parameter gets a gradient, in f32 also under bf16 autocast")
{
    manual_seed(3);
    auto attn = std::make_shared<nn::CausalSelfAttention>(8, 2);
    const Tensor x = randn({2, 4, 8});
    Tensor y;
    {
        amp::autocast region("cpu");
        y = (*attn)(x);
    }
    CHECK(y.dtype() == bf16);
    sum(mul(y, y)).backward();
    for (const auto& [name, p] : attn->named_parameters()) {
        INFO(name);
        REQUIRE(p.grad().defined());
        CHECK(p.grad().dtype() == f32);
        CHECK(p.grad().shape() == p.shape());
        double largest = 0;
        for (double g : p.grad().to_vector()) largest = std::max(largest, std::abs(g));
        CHECK(largest > 0);
    }
}

TEST_CASE("nn::CausalSelfAttention: the fused op and the reference agree (f64 tightly, f32 and bf16 autocast within tolerance)")
{
    manual_seed(4);
    nn::CausalSelfAttention attn(16, 4);
    Generator gen(5);
    const Tensor x = randn({2, 7, 16}, f32, gen);
    attn.to(f64);
    const Tensor x64 = x.to(f64);
    attn.fused_attention = true;
    const Tensor fused64 = attn(x64);
    attn.fused_attention = false;
    const Tensor reference64 = attn(x64);
    check_close(fused64, reference64, f64, ulps_for(f64, 4 + 7 + 16));
    attn.to(f32);
    for (bool fused : {true, false}) {
        attn.fused_attention = fused;
        // f32: within the f32 sums of the two Linears and the attention, as a share of the output's size.
        check_close(attn(x), fused64, f32, ulps_for(f32, 16 + 7 + 16 + 16));
        Tensor low;
        {
            amp::autocast region("cpu");
            low = attn(x);
        }
        CHECK(low.dtype() == bf16);
        // bf16 rounds x, the weights and biases, qkv, the attention and the output: within 4 ulps of the output's scale.
        check_close(low, fused64, bf16, 4.0);
    }
}

TEST_CASE("nn::CausalSelfAttention: f64 gradients of a tiny layer by gradcheck, for the input and all four parameters")
{
    manual_seed(6);
    nn::CausalSelfAttention attn(6, 2);
    attn.to(f64);
    Generator gen(7);
    const Tensor x = randn({2, 4, 6}, f64, gen).requires_grad_();
    const Tensor w1 = attn.c_attn->weight, b1 = attn.c_attn->bias, w2 = attn.c_proj->weight, b2 = attn.c_proj->bias;
    for (bool fused : {true, false}) {
        INFO(std::string(fused ? "fused" : "reference"));
        attn.fused_attention = fused;
        const GradcheckResult r = gradcheck(
            [&](const std::vector<Tensor>& in) {
                attn.c_attn->weight = in[1];
                attn.c_attn->bias = in[2];
                attn.c_proj->weight = in[3];
                attn.c_proj->bias = in[4];
                return attn(in[0]);
            },
            {x, w1, b1, w2, b2});
        INFO(r.report);
        CHECK(r.ok);
    }
    attn.c_attn->weight = w1;
    attn.c_attn->bias = b1;
    attn.c_proj->weight = w2;
    attn.c_proj->bias = b2;
}

TEST_CASE("nn::CausalSelfAttention::attention_logits: q k^T / sqrt(head_dim) of c_attn's q and k, in f64, the q and k rounded as autocast makes them")
{
    manual_seed(3);
    nn::CausalSelfAttention attn(8, 2);
    const Tensor x = randn({2, 5, 8});
    const Tensor logits = attn.attention_logits(x);
    CHECK(logits.shape() == Shape{2, 2, 5, 5});
    CHECK(logits.dtype() == DType::f64);
    CHECK_FALSE(logits.requires_grad());
    // Head 1 of sample 1, query 4 against key 2, by hand from c_attn's output.
    const std::vector<double> qkv = attn.c_attn->forward(x).select(0, 1).to_vector();  // [5, 24] row-major
    double dot = 0;
    for (int e = 0; e < 4; ++e) dot += qkv[std::size_t(4 * 24 + 4 + e)] * qkv[std::size_t(2 * 24 + 8 + 4 + e)];
    CHECK(logits.select(0, 1).select(0, 1).select(0, 4).select(0, 2).item() == doctest::Approx(dot / 2.0).epsilon(1e-6));
    // Under bf16 autocast c_attn's output is bf16, and the logits come from those rounded q and k.
    Tensor low;
    {
        amp::autocast region("cpu", {.dtype = bf16});
        low = attn.attention_logits(x);
    }
    CHECK(low.dtype() == DType::f64);
    CHECK(low.to_vector() != logits.to_vector());
    check_close(low, logits, bf16, 4.0);  // two roundings of 2^-9 per product, relative to the largest logit
}

TEST_CASE("nn::CausalSelfAttention errors")
{
    CHECK(error_message([] { nn::CausalSelfAttention(10, 3); }, ErrorKind::value).find("num_heads must divide embed_dim") != std::string::npos);
    nn::CausalSelfAttention attn(8, 2);
    CHECK(error_message([&] { attn(randn({4, 8})); }, ErrorKind::shape).find("[B, T, embed_dim] = [B, T, 8]") != std::string::npos);
    CHECK(error_message([&] { attn(randn({1, 4, 6})); }, ErrorKind::shape).find("got shape [1, 4, 6]") != std::string::npos);
}
