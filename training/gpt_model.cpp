#include "training/gpt_model.h"

#include <algorithm>
#include <cmath>

namespace tinyamp::train {
namespace {

// Sets every element of a parameter from N(0, std) (drawn from the default generator, so a
// manual_seed makes the model reproducible), or to zero when std is 0. Outside autograd.
void init_normal(const Tensor& parameter, double std)
{
    NoGradGuard no_grad;
    parameter.copy_(std == 0 ? zeros(parameter.shape(), parameter.dtype()) : mul(randn(parameter.shape(), parameter.dtype()), std));
}

void init_linear(nn::Linear& layer, double std)
{
    init_normal(layer.weight, std);
    if (layer.bias.defined()) init_normal(layer.bias, 0);
}

// The finite-range limits the statistics compare with.
constexpr double kF16Max = 65504.0;
constexpr double kBf16Max = 3.3895313892515355e38;
// Below half the smallest subnormal a value rounds to zero (at exactly half it rounds to even: 0).
constexpr double kF16Zero = 2.9802322387695312e-08;  // 2^-25
constexpr double kBf16Zero = 4.591774807899561e-41;  // 2^-134

}  // namespace

RangeStats range_stats(const Tensor& x, const Tensor& keep)
{
    NoGradGuard no_grad;
    const Tensor values = x.to(f64).contiguous();
    const Tensor mask = keep.defined() ? keep.expand(x.shape()).contiguous() : Tensor();
    const double* v = values.data_ptr<double>();
    const bool* m = mask.defined() ? mask.data_ptr<bool>() : nullptr;
    RangeStats s;
    std::int64_t f16_over = 0, f16_under = 0, bf16_over = 0, bf16_under = 0;
    const std::int64_t total = values.numel();
    for (std::int64_t i = 0; i < total; ++i) {
        if (m && !m[i]) continue;
        ++s.count;
        const double a = std::fabs(v[i]);
        if (!std::isfinite(a)) {
            ++s.nonfinite;
            continue;
        }
        s.max_abs = std::max(s.max_abs, a);
        f16_over += a > kF16Max;
        bf16_over += a > kBf16Max;
        f16_under += a != 0 && a <= kF16Zero;
        bf16_under += a != 0 && a <= kBf16Zero;
    }
    if (s.count > 0) {
        const double n = double(s.count);
        s.f16_overflow = double(f16_over) / n;
        s.f16_underflow = double(f16_under) / n;
        s.bf16_overflow = double(bf16_over) / n;
        s.bf16_underflow = double(bf16_under) / n;
    }
    return s;
}

void merge(RangeStats& a, const RangeStats& b)
{
    const double n = double(a.count + b.count);
    if (n == 0) return;
    const auto mix = [&](double x, double y) { return (x * double(a.count) + y * double(b.count)) / n; };
    a.f16_overflow = mix(a.f16_overflow, b.f16_overflow);
    a.f16_underflow = mix(a.f16_underflow, b.f16_underflow);
    a.bf16_overflow = mix(a.bf16_overflow, b.bf16_overflow);
    a.bf16_underflow = mix(a.bf16_underflow, b.bf16_underflow);
    a.max_abs = std::max(a.max_abs, b.max_abs);
    a.count += b.count;
    a.nonfinite += b.nonfinite;
}

GptBlock::GptBlock(const GptConfig& config)
{
    ln_1 = register_module("ln_1", std::make_shared<nn::LayerNorm>(config.n_embd));
    attn = register_module("attn", std::make_shared<nn::CausalSelfAttention>(config.n_embd, config.n_head));
    attn->fused_attention = config.fused_attention;
    ln_2 = register_module("ln_2", std::make_shared<nn::LayerNorm>(config.n_embd));
    // nanoGPT names the MLP's layers mlp.c_fc and mlp.c_proj; here they sit in the block.
    c_fc = register_module("c_fc", std::make_shared<nn::Linear>(config.n_embd, 4 * config.n_embd));
    c_proj = register_module("c_proj", std::make_shared<nn::Linear>(4 * config.n_embd, config.n_embd));
    // GPT-2's init: N(0, std), zero biases, and the two projections into the residual stream
    // scaled by 1/sqrt(2 n_layer) so the stream's variance does not grow with depth.
    const double residual_std = config.init_std / std::sqrt(2.0 * double(config.n_layer));
    init_linear(*attn->c_attn, config.qkv_init_std > 0 ? config.qkv_init_std : config.init_std);
    init_linear(*attn->c_proj, residual_std);
    init_linear(*c_fc, config.init_std);
    init_linear(*c_proj, residual_std);
}

Tensor GptBlock::forward(const Tensor& x) { return forward_probed(x, nullptr); }

Tensor GptBlock::forward_probed(const Tensor& x, BlockStats* stats)
{
    const Tensor normed = (*ln_1)(x);
    const Tensor attended = (*attn)(normed);
    const Tensor h = add(x, attended);
    const Tensor hidden = (*c_fc)((*ln_2)(h));
    const Tensor out = add(h, (*c_proj)(gelu(hidden)));
    if (stats) {
        const std::int64_t t = x.size(1);
        stats->attention_logits = range_stats(attn->attention_logits(normed), gt(tril(ones({t, t})), 0.0));
        stats->activations = range_stats(attended);
        merge(stats->activations, range_stats(hidden));
        merge(stats->activations, range_stats(out));
    }
    return out;
}

Gpt::Gpt(const GptConfig& cfg) : config(cfg)
{
    TINYAMP_CHECK(cfg.vocab_size > 0 && cfg.block_size > 0 && cfg.n_layer > 0 && cfg.n_head > 0 && cfg.n_embd > 0, value,
                  "GPT: vocab_size, block_size, n_layer, n_head and n_embd must be positive");
    TINYAMP_CHECK(cfg.n_embd % cfg.n_head == 0, value, "GPT: n_embd (", cfg.n_embd, ") must be a multiple of n_head (", cfg.n_head, ")");
    TINYAMP_CHECK(cfg.init_std >= 0 && cfg.qkv_init_std >= 0, value, "GPT: init_std and qkv_init_std must not be negative, got ", cfg.init_std,
                  " and ", cfg.qkv_init_std);
    wte = register_module("wte", std::make_shared<nn::Embedding>(cfg.vocab_size, cfg.n_embd));
    wpe = register_module("wpe", std::make_shared<nn::Embedding>(cfg.block_size, cfg.n_embd));
    init_normal(wte->weight, cfg.init_std);
    init_normal(wpe->weight, cfg.init_std);
    // The blocks go into "h" before it is registered, so their parameters' labels get "h." too.
    auto h = std::make_shared<nn::Sequential>();
    for (std::int64_t i = 0; i < cfg.n_layer; ++i) blocks.push_back(h->emplace_back<GptBlock>(cfg));
    register_module("h", h);
    ln_f = register_module("ln_f", std::make_shared<nn::LayerNorm>(cfg.n_embd));
    lm_head = register_module("lm_head", std::make_shared<nn::Linear>(cfg.n_embd, cfg.vocab_size, false));
    init_linear(*lm_head, cfg.init_std);
}

Tensor Gpt::forward(const Tensor& idx) { return forward_probed(idx, nullptr); }

Tensor Gpt::forward_probed(const Tensor& idx, GptProbe* probe)
{
    TINYAMP_CHECK(idx.dim() == 2 && idx.dtype() == DType::i64, value, "GPT: the input must be token indices [B, T] of dtype i64, got ",
                  dtype_name(idx.dtype()), " with shape ", shape_str(idx.shape()));
    const std::int64_t t = idx.size(1);
    TINYAMP_CHECK(t <= config.block_size, value, "GPT: a sequence of ", t, " tokens is longer than block_size ", config.block_size,
                  "; cut it or build the model with a larger block_size");
    const Tensor positions = arange(t);
    // Named, so the token embedding runs before the position embedding on every compiler (as
    // arguments of add() their order was the compiler's, and the native and web traces differed).
    const Tensor tok_emb = (*wte)(idx);
    const Tensor pos_emb = (*wpe)(positions);
    Tensor x = add(tok_emb, pos_emb);
    if (probe) probe->blocks.assign(blocks.size(), BlockStats{});
    // Through operator() when nothing is probed, so a trace shows each block's frame.
    for (std::size_t i = 0; i < blocks.size(); ++i) x = probe ? blocks[i]->forward_probed(x, &probe->blocks[i]) : (*blocks[i])(x);
    return (*lm_head)((*ln_f)(x));
}

}  // namespace tinyamp::train
