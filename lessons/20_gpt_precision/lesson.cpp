// Lesson 20: a small GPT in every precision. Attention multiplies queries by keys: when those grow,
// the logits outgrow f16's 65504 long before anything else in the model does. A composite attention
// (matmul, softmax, matmul as separate ops) stores them in f16 under autocast and turns them into
// inf and NaN; the fused op (FlashAttention's way) keeps them in f32; bf16 has f32's range. Then a
// character-level GPT trains in f32, bf16, f16 + GradScaler and f16 without a scaler, with its
// per-block ranges printed; and last its attention is provoked into overflowing, which no loss
// scale can fix.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "lessons/support/lesson.h"
#include "training/gpt_trainer.h"

using namespace tinyamp;

namespace {

constexpr double kF16Max = 65504.0;

std::string pct(double share) { return lesson::fmt(100 * share) + " %"; }

// Share of the elements of `t` that are NaN or +-inf.
double nonfinite_share(const Tensor& t)
{
    const trace::ValueStats st = trace::compute_stats(t);
    return st.infs + st.nans;
}

// ---------------------------------------------------------------------------------------------
// Step 1: the attention logits.

void step_logits(lesson::Lesson& L)
{
    L.step("Attention logits live in the activations' dtype");
    constexpr std::int64_t T = 8, d = 16;
    L.expect("One head, " + std::to_string(T) + " tokens, head size " + std::to_string(d) +
             ", queries and keys with components of about 300: their logits\n"
             "q k^T / sqrt(d) reach about 1e5, past f16's 65504. The composite attention (matmul, mask, softmax,\n"
             "matmul, each an op) run under f16 autocast stores q k^T in f16: it overflows to inf, and the\n"
             "softmax turns each row that holds an inf into NaN. Asking the softmax for f32 is too late: the inf\n"
             "is already there. The fused op computes the same logits in f32 inside (as FlashAttention keeps\n"
             "them in registers) and stays finite; so does the composite in bf16, whose range is f32's. The fix\n"
             "PyTorch users apply by hand: leave autocast for the attention and run it in f32.");
    Generator gen(0);
    const Tensor q = mul(randn({1, 1, T, d}, f32, gen), 300.0), k = mul(randn({1, 1, T, d}, f32, gen), 300.0);
    const Tensor v = randn({1, 1, T, d}, f32, gen);
    const double scale = 1.0 / std::sqrt(double(d));
    const Tensor causal = gt(tril(ones({T, T})), 0.0);
    const train::RangeStats logits = train::range_stats(mul(matmul(q.to(f64), k.to(f64).transpose(2, 3)), scale), causal);
    const train::RangeStats product = train::range_stats(matmul(q.to(f64), k.to(f64).transpose(2, 3)), causal);
    std::printf("   the %lld logits the causal mask keeps: largest |q k^T / sqrt(d)| %s (f16 max 65504): %s of them past it\n",
                static_cast<long long>(logits.count), lesson::fmt(logits.max_abs).c_str(), pct(logits.f16_overflow).c_str());
    std::printf("   the composite computes q k^T first, then divides by sqrt(d) = %s: largest |q k^T| %s, %s past 65504\n",
                lesson::fmt(std::sqrt(double(d))).c_str(), lesson::fmt(product.max_abs).c_str(), pct(product.f16_overflow).c_str());

    const Tensor exact = scaled_dot_product_attention(q, k, v, Tensor(), 0.0, true);  // f32 throughout
    Tensor composite16, logits16, late_f32_softmax, fused16, composite_bf16, outside16;
    {
        amp::autocast region("cpu", {.dtype = f16});
        composite16 = scaled_dot_product_attention_reference(q, k, v, Tensor(), 0.0, true);
        logits16 = matmul(q, k.transpose(2, 3));  // what the composite's first op makes
        const Tensor masked = masked_fill(mul(logits16, scale), triu(ones({T, T}, DType::boolean), 1), -INFINITY);
        late_f32_softmax = softmax(masked, -1, f32);
        fused16 = scaled_dot_product_attention(q, k, v, Tensor(), 0.0, true);
        {
            amp::autocast off("cpu", {.enabled = false});  // the attention in f32, then back to the region's dtype
            outside16 = scaled_dot_product_attention_reference(q.to(f32), k.to(f32), v.to(f32), Tensor(), 0.0, true).to(f16);
        }
    }
    {
        amp::autocast region("cpu", {.dtype = bf16});
        composite_bf16 = scaled_dot_product_attention_reference(q, k, v, Tensor(), 0.0, true);
    }
    std::printf("   %-44s %-8s %12s %16s\n", "f16 autocast unless said", "dtype", "inf or NaN", "error vs f32");
    const auto row = [&](const char* name, const Tensor& y, bool compare) {
        std::printf("   %-44s %-8s %12s %16s\n", name, dtype_name(y.dtype()), pct(nonfinite_share(y)).c_str(),
                    compare ? pct(lesson::relative_difference(y, exact)).c_str() : "-");
    };
    row("q k^T (the composite's first op)", logits16, false);
    row("softmax(..., dtype=f32) of those logits", late_f32_softmax, false);
    row("composite attention", composite16, false);
    row("fused scaled_dot_product_attention", fused16, true);
    row("composite attention, bf16 autocast", composite_bf16, true);
    row("composite attention outside autocast (f32)", outside16, true);
    L.check(logits.max_abs > kF16Max && logits.f16_overflow > 0, "some logits are past f16's 65504 (computed in f64)");
    L.check(logits16.dtype() == f16 && trace::compute_stats(logits16).infs > 0, "under f16 autocast q k^T is f16 and holds inf");
    L.check(nonfinite_share(late_f32_softmax) > 0, "a softmax in f32 after the f16 product is too late: it gives NaN");
    L.check(nonfinite_share(composite16) > 0, "the composite attention under f16 autocast gives NaN");
    L.check(fused16.dtype() == f16 && nonfinite_share(fused16) == 0 && lesson::relative_difference(fused16, exact) < 0.01,
            "the fused op under f16 autocast returns f16, finite, within 1 % of f32");
    L.check(composite_bf16.dtype() == bf16 && nonfinite_share(composite_bf16) == 0, "the composite under bf16 autocast is finite");
    L.check(outside16.dtype() == f16 && nonfinite_share(outside16) == 0 && lesson::relative_difference(outside16, exact) < 0.01,
            "the composite run in f32 outside autocast (then cast to f16) is finite, within 1 % of f32");
    L.key_result("logits up to " + lesson::fmt(logits.max_abs) + ": composite f16 attention " + pct(nonfinite_share(composite16)) +
                 " NaN; fused f16 and composite bf16 finite");
}

// ---------------------------------------------------------------------------------------------
// Step 2: the GPT in four modes.

// The tiny GPT of steps 2-4: 2 blocks of 4 heads (head size 8), width 32, context 32 characters,
// 60 AdamW steps of 16 windows, evaluated every 20 steps (2 fixed batches per split).
train::GptTrainConfig gpt_config(train::Mode mode)
{
    train::GptTrainConfig c;
    c.mode = mode;
    c.model.block_size = 32;
    c.model.n_layer = 2;
    c.model.n_head = 4;
    c.model.n_embd = 32;
    c.steps = 60;
    c.batch_size = 16;
    c.lr = 3e-3;
    c.min_lr = 3e-4;
    c.warmup_steps = 10;
    c.eval_interval = 20;
    c.eval_batches = 2;
    c.sample_chars = 0;
    return c;
}

// Of a run's steps: how many the GradScaler skipped, how many had an inf/NaN loss, and the largest
// memory a forward pass added.
std::int64_t skipped_steps(const train::GptResult& r)
{
    return std::count_if(r.steps.begin(), r.steps.end(), [](const train::GptStep& s) { return s.skipped; });
}

std::int64_t nonfinite_losses(const train::GptResult& r)
{
    return std::count_if(r.steps.begin(), r.steps.end(), [](const train::GptStep& s) { return !std::isfinite(s.loss); });
}

std::int64_t peak_forward_bytes(const train::GptResult& r)
{
    std::int64_t peak = 0;
    for (const train::GptStep& s : r.steps) peak = std::max(peak, s.peak_activation_bytes);
    return peak;
}

struct GptRun {
    train::Mode mode;
    train::GptResult result;
    const train::GptEval& last() const { return result.evals.back(); }
};

std::string kib(double bytes) { return lesson::fmt(bytes / 1024.0) + " KiB"; }

std::vector<GptRun> step_four_modes(lesson::Lesson& L)
{
    const train::GptConfig model = gpt_config(train::Mode::f32).model;
    L.step("A tiny GPT in f32, bf16, f16 + GradScaler and f16 without a scaler");
    L.expect(lesson::wrap("nanoGPT's model, tiny: " + std::to_string(model.n_layer) + " blocks, " + std::to_string(model.n_head) +
             " heads, width " + std::to_string(model.n_embd) + ", context " + std::to_string(model.block_size) +
             " characters of the King James text, 60 AdamW steps per mode from the same weights and batches "
             "(training/'s GPT loop: tinyamp-train --model gpt). The validation loss falls from ln 62 = 4.13 "
             "nats per character to about 2.7 in every mode, the three low-precision modes within 1 % of f32. Per "
             "block, the largest attention logit stays below 1 and the largest activation below 10: nothing is "
             "anywhere near 65504, and no activation flushes. The gradients are small, but mostly not that small: "
             "without a scaler, f16 loses a few of them (under 1 %), with the scaler none or fewer. The forward's "
             "peak memory is lower in the 16-bit modes, though not half: the residual stream, the LayerNorms and "
             "the loss stay f32."));
    std::vector<GptRun> runs;
    for (train::Mode mode : train::all_modes()) runs.push_back({mode, train::run_gpt_training(gpt_config(mode))});

    std::printf("   %-14s %-24s %8s %12s %14s\n", "mode", "val loss at steps", "skipped", "final scale", "forward peak");
    for (const GptRun& r : runs) {
        std::string losses;
        for (const train::GptEval& e : r.result.evals) losses += lesson::fmt(e.val_loss) + " ";
        std::printf("   %-14s %-24s %8lld %12s %14s\n", train::mode_name(r.mode), losses.c_str(), static_cast<long long>(skipped_steps(r.result)),
                    lesson::fmt(r.result.steps.back().scale).c_str(), kib(double(peak_forward_bytes(r.result))).c_str());
    }
    std::printf("   (evaluations at steps");
    for (const train::GptEval& e : runs[0].result.evals) std::printf(" %lld", static_cast<long long>(e.step));
    std::printf("; per block at the last one:)\n");
    std::printf("   %-14s %5s %11s %11s %13s %14s %22s\n", "mode", "block", "max|logit|", "max|act|", "f16 overflow", "f16 underflow",
                "grad lost in this mode");
    for (const GptRun& r : runs) {
        const train::GptEval& e = r.last();
        for (std::size_t b = 0; b < e.blocks.size(); ++b) {
            const train::BlockStats& s = e.blocks[b];
            std::printf("   %-14s %5zu %11s %11s %13s %14s %22s\n", b == 0 ? train::mode_name(r.mode) : "", b,
                        lesson::fmt(s.attention_logits.max_abs).c_str(), lesson::fmt(s.activations.max_abs).c_str(),
                        pct(s.activations.f16_overflow).c_str(), pct(s.activations.f16_underflow).c_str(), pct(e.grad_underflow[b]).c_str());
        }
        std::printf("   %-14s %5s %11s %11s %13s %14s %22s\n", "", "rest", "", "", "", "", pct(e.grad_underflow.back()).c_str());
    }

    const GptRun &f32_run = runs[0], &no_scaler = runs[3];
    const double f32_loss = f32_run.last().val_loss;
    bool learned = true, close = true, small = true, flushes = false, finite = true;
    double lost_without = 0, lost_with = 0, most_lost = 0;
    for (const GptRun& r : runs) {
        learned = learned && r.last().val_loss < 3.0 && r.last().val_loss < r.result.evals.front().val_loss - 0.2;
        close = close && std::abs(r.last().val_loss - f32_loss) <= 0.01 * f32_loss;
        finite = finite && nonfinite_losses(r.result) == 0 && skipped_steps(r.result) == 0;
        for (const train::GptEval& e : r.result.evals) {
            for (const train::BlockStats& s : e.blocks) {
                small = small && s.attention_logits.max_abs < 10 && s.activations.max_abs < 10 && s.attention_logits.f16_overflow == 0 &&
                        s.activations.f16_overflow == 0;
                flushes = flushes || s.activations.f16_underflow > 0.001;
            }
            for (double lost : e.grad_underflow) {
                if (r.mode == train::Mode::f16_no_scaler) lost_without += lost, most_lost = std::max(most_lost, lost);
                if (r.mode == train::Mode::f16_scaler) lost_with += lost;
            }
        }
    }
    L.check(learned, "every mode's validation loss falls by more than 0.2, to below 3 nats per character");
    L.check(close, "bf16, f16 + GradScaler and f16 without a scaler end within 1 % of f32's validation loss (" + lesson::fmt(f32_loss) + ")");
    L.check(finite, "no step's loss is inf or NaN and the GradScaler skipped no step");
    L.check(small && !flushes, "in every mode, block and evaluation the largest |logit| and |activation| are below 10, none past 65504, "
                               "and under 0.1 % of the activations flush to 0 in f16");
    L.check(lost_without > lost_with && most_lost < 0.01,
            "f16 without a scaler loses more gradient elements than with one, but under 1 % of any block's");
    bool lighter = true;
    for (std::size_t i = 1; i < runs.size(); ++i)
        lighter = lighter && double(peak_forward_bytes(runs[i].result)) < 0.8 * double(peak_forward_bytes(f32_run.result));
    L.check(lighter, "the 16-bit modes' forward peak is under 80 % of f32's");
    L.key_result("tiny GPT, 60 steps: val loss f32 " + lesson::fmt(f32_loss) + ", bf16 " + lesson::fmt(runs[1].last().val_loss) +
                 ", f16+scaler " + lesson::fmt(runs[2].last().val_loss) + ", f16 no scaler " + lesson::fmt(no_scaler.last().val_loss) +
                 "; max |logit| under 1; f16 without a scaler loses at most " + pct(most_lost) + " of a block's gradient");
    return runs;
}

// ---------------------------------------------------------------------------------------------
// Step 3: a smaller loss.

// Which group a parameter of train::Gpt belongs to: block i for "h.i.*", the last for the rest.
std::size_t group_of(const std::string& name, std::size_t blocks)
{
    if (name.rfind("h.", 0) != 0) return blocks;
    return std::size_t(std::stoll(name.substr(2, name.find('.', 2) - 2)));
}

// The parameter gradients of loss * factor on (x, y), in f32 or under autocast in `dtype`.
std::vector<Tensor> gradients(train::Gpt& model, const Tensor& x, const Tensor& y, double factor, DType dtype)
{
    model.zero_grad();
    Tensor loss;
    {
        std::optional<amp::autocast> region;
        if (dtype != f32) region.emplace("cpu", amp::AutocastOptions{.dtype = dtype});
        const Tensor logits = model(x);
        loss = cross_entropy(logits.reshape({-1, logits.size(2)}), y.reshape({-1}));
    }
    mul(loss, factor).backward();
    std::vector<Tensor> out;
    for (const Tensor& p : model.parameters()) out.push_back(p.grad());
    model.zero_grad();
    return out;
}

// Per group (blocks, then the rest), of the gradient elements nonzero in `reference`, the share
// that are 0 in `grads`; the last entry is the share over all of them.
std::vector<double> lost_shares(const nn::NamedTensors& params, std::size_t blocks, const std::vector<Tensor>& reference,
                                const std::vector<Tensor>& grads)
{
    std::vector<double> nonzero(blocks + 2, 0), lost(blocks + 2, 0);
    for (std::size_t i = 0; i < reference.size(); ++i) {
        const std::size_t g = group_of(params[i].first, blocks);
        const std::vector<double> r = reference[i].to_vector(), o = grads[i].to_vector();
        for (std::size_t k = 0; k < r.size(); ++k)
            if (r[k] != 0) {
                const double gone = o[k] == 0 ? 1 : 0;
                nonzero[g] += 1, lost[g] += gone;
                nonzero.back() += 1, lost.back() += gone;
            }
    }
    std::vector<double> share(nonzero.size(), 0);
    for (std::size_t g = 0; g < share.size(); ++g) share[g] = nonzero[g] == 0 ? 0 : lost[g] / nonzero[g];
    return share;
}

void step_small_loss(lesson::Lesson& L)
{
    L.step("When f16 without a scaler does lose gradients: a smaller loss");
    L.expect("Gradient accumulation divides each micro-batch's loss by the number of micro-batches (nanoGPT's\n"
             "train.py: loss / gradient_accumulation_steps, 40 by default on one GPU), and every gradient shrinks\n"
             "with it. The GPT of step 2 at its initial weights, one batch of 16 x 32 characters: the share of\n"
             "gradient elements that f32 has as nonzero and f16 autocast returns as 0 grows as the loss shrinks,\n"
             "past 1 % at loss / 40. Multiplying by the GradScaler's 65536 as well brings it back under 0.1 %;\n"
             "bf16 loses almost nothing, at any factor, with no scaler.");
    const data::TextDataset text = data::load_text_dataset(data::data_path("kjv_1mb.txt.gz"));
    train::GptConfig config = gpt_config(train::Mode::f32).model;
    config.vocab_size = text.tokenizer.vocab_size();
    manual_seed(0);  // the weights step 2 started from
    train::Gpt model(config);
    Generator gen(1);
    const auto [x, y] = data::sample_batch(text.val, 16, config.block_size, gen);
    const nn::NamedTensors params = model.named_parameters();
    const std::size_t blocks = model.blocks.size();
    std::printf("   %-12s %-22s %-26s %s\n", "loss x", "f16 autocast: lost", "f16, loss x 65536 too", "bf16 autocast: lost");
    std::vector<double> f16_lost, scaled_lost, bf16_lost;
    std::vector<double> per_group_40;
    const std::vector<std::pair<double, std::string>> factors{{1.0, "1"}, {1.0 / 8, "1/8"}, {1.0 / 40, "1/40"}, {1.0 / 1024, "1/1024"}};
    for (const auto& [factor, name] : factors) {
        const std::vector<Tensor> reference = gradients(model, x, y, factor, f32);
        const std::vector<double> lost16 = lost_shares(params, blocks, reference, gradients(model, x, y, factor, f16));
        f16_lost.push_back(lost16.back());
        scaled_lost.push_back(lost_shares(params, blocks, reference, gradients(model, x, y, factor * 65536, f16)).back());
        bf16_lost.push_back(lost_shares(params, blocks, reference, gradients(model, x, y, factor, bf16)).back());
        if (name == "1/40") per_group_40 = lost16;
        std::printf("   %-12s %-22s %-26s %s\n", name.c_str(), pct(f16_lost.back()).c_str(), pct(scaled_lost.back()).c_str(),
                    pct(bf16_lost.back()).c_str());
    }
    std::printf("   at loss / 40, f16 loses by group: block 0 %s, block 1 %s, embeddings + LayerNorm + head %s\n",
                pct(per_group_40[0]).c_str(), pct(per_group_40[1]).c_str(), pct(per_group_40[2]).c_str());
    L.check(f16_lost[0] < 0.01, "at the plain mean loss f16 loses under 1 % of the gradient elements");
    L.check(f16_lost[2] > 0.01 && f16_lost[3] > f16_lost[2] && f16_lost[2] > f16_lost[0],
            "the share grows as the loss shrinks, past 1 % at loss / 40");
    bool rescued = true, bf16_fine = true;
    for (std::size_t i = 0; i < factors.size(); ++i) {
        rescued = rescued && scaled_lost[i] < 0.001;
        bf16_fine = bf16_fine && bf16_lost[i] < 0.001;
    }
    L.check(rescued, "multiplied by 65536 as well (the GradScaler's scale), f16 loses under 0.1 % at every factor");
    L.check(bf16_fine, "bf16 autocast loses under 0.1 % at every factor, with no scaler");
    L.key_result("loss / 40 (gradient accumulation): f16 without a scaler loses " + pct(f16_lost[2]) + " of the gradient elements, with x65536 " +
                 pct(scaled_lost[2]) + ", bf16 " + pct(bf16_lost[2]));
}

// ---------------------------------------------------------------------------------------------
// Step 4: provoke the overflow.

constexpr double kQkvStd = 15;

// The largest |logit| of a block, or "NaN" when every one of them is NaN or inf.
std::string logit_text(const train::RangeStats& logits)
{
    return logits.count > 0 && logits.nonfinite == logits.count ? "NaN" : lesson::fmt(logits.max_abs);
}

void step_provoke(lesson::Lesson& L, const std::vector<GptRun>& normal)
{
    const train::GptConfig model = gpt_config(train::Mode::f32).model;
    const double head_dim = double(model.n_embd / model.n_head);
    const double logit_limit = kF16Max / std::sqrt(head_dim);
    L.step("Provoke it: large attention logits, composite attention, f16");
    L.expect(lesson::wrap("The same GPT with its q/k/v projection drawn with std " + lesson::fmt(kQkvStd) +
             " instead of 0.02 (GptConfig::qkv_init_std): the logits reach a few 1e4. The composite attention "
             "multiplies q k^T before it divides by sqrt(head size) = sqrt(" + lesson::fmt(head_dim) + "), so "
             "under f16 it overflows once a logit passes 65504 / sqrt(" + lesson::fmt(head_dim) +
             ") = " + lesson::fmt(logit_limit) + ", well below 65504 itself: the loss is NaN from the first step. "
             "A GradScaler cannot help: it multiplies the loss after the forward pass, and the forward pass is "
             "what overflowed. It skips every step and halves its scale each time: 65536 at step 1, 0.125 at step "
             "20. Without a scaler the NaN gradients reach the weights at the first step, and the model is NaN for "
             "good. The same weights train in bf16 (composite) and in f16 with the fused attention: finite losses, "
             "falling. (The fused f16 run skips some steps too: gradients of such logits are large, its backward "
             "overflows at 65536, and each skip halves the scale until the backward fits: the overflow a "
             "GradScaler is for.)"));
    struct Provoked {
        const char* name;
        train::Mode mode;
        bool fused;
        train::GptResult result;
    };
    std::vector<Provoked> runs{{"f16 + scaler, composite", train::Mode::f16_scaler, false, {}},
                               {"f16 no scaler, composite", train::Mode::f16_no_scaler, false, {}},
                               {"bf16, composite", train::Mode::bf16, false, {}},
                               {"f16 + scaler, fused", train::Mode::f16_scaler, true, {}}};
    std::vector<std::string> warnings;
    const WarningHandler previous = set_warning_handler([&](const std::string& w) { warnings.push_back(w); });
    for (Provoked& r : runs) {
        train::GptTrainConfig c = gpt_config(r.mode);
        c.model.qkv_init_std = kQkvStd;
        c.model.fused_attention = r.fused;
        c.steps = 20;
        c.eval_interval = 5;
        r.result = train::run_gpt_training(c);
    }
    set_warning_handler(previous);

    std::printf("   %-26s %11s %11s %9s %12s %10s %18s\n", "run", "first loss", "last loss", "skipped", "inf/NaN loss", "last scale",
                "max|logit| block 0");
    for (const Provoked& r : runs)
        std::printf("   %-26s %11s %11s %9lld %12lld %10s %18s\n", r.name, lesson::fmt(r.result.steps.front().loss).c_str(),
                    lesson::fmt(r.result.steps.back().loss).c_str(), static_cast<long long>(skipped_steps(r.result)),
                    static_cast<long long>(nonfinite_losses(r.result)), lesson::fmt(r.result.steps.back().scale).c_str(),
                    logit_text(r.result.evals.front().blocks[0].attention_logits).c_str());
    std::printf("   tinyamp warned %zu times (once per run whose first step was skipped) that the LR scheduler stepped before the\n"
                "   optimizer: with a GradScaler, that is what a skipped first step looks like (lesson 13)\n", warnings.size());

    const train::GptResult &scaled = runs[0].result, &unscaled = runs[1].result, &bf16_run = runs[2].result, &fused = runs[3].result;
    const std::int64_t steps = std::int64_t(scaled.steps.size());
    bool halves = true;
    for (std::size_t i = 0; i < scaled.steps.size(); ++i) halves = halves && scaled.steps[i].scale == 65536.0 / std::pow(2.0, double(i));
    L.check(scaled.evals.front().blocks[0].attention_logits.max_abs > logit_limit,
            "block 0's largest logit is past 65504 / sqrt(" + lesson::fmt(head_dim) + ") = " + lesson::fmt(logit_limit));
    L.check(nonfinite_losses(scaled) == steps && skipped_steps(scaled) == steps,
            "f16 + GradScaler, composite: every step's loss is NaN and every step is skipped");
    L.check(halves, "and the scale halves at every step: 65536, 32768, ..., " + lesson::fmt(scaled.steps.back().scale));
    bool all_nan = true;
    for (const train::GptEval& e : unscaled.evals)
        for (const train::BlockStats& b : e.blocks) all_nan = all_nan && b.attention_logits.nonfinite == b.attention_logits.count;
    L.check(nonfinite_losses(unscaled) == steps && all_nan,
            "f16 without a scaler, composite: every loss is NaN, and from the first evaluation on every logit is NaN (the weights are)");
    const auto trains = [&](const train::GptResult& r, std::int64_t max_skipped) {
        return nonfinite_losses(r) == 0 && skipped_steps(r) <= max_skipped && r.evals.back().val_loss < r.evals.front().val_loss;
    };
    L.check(trains(bf16_run, 0), "bf16, composite: every loss finite, no step skipped, the validation loss falls");
    std::string skips;
    for (const train::GptStep& s : fused.steps)
        if (s.skipped) {
            char text[64];
            std::snprintf(text, sizeof text, " %lld (scale %s)", static_cast<long long>(s.step), lesson::fmt(s.scale).c_str());
            skips += text;
        }
    std::printf("   the fused f16 run skipped steps%s\n", skips.c_str());
    L.check(trains(fused, steps / 2 - 1) && fused.steps.back().scale > 1,
            "f16 + GradScaler, fused attention: every loss finite, the validation loss falls, fewer than half of the steps "
            "skipped (backward overflows), and the scale stays above 1");

    // The picture: the largest logit of each block at each evaluation, against f16's limits.
    lesson::LinePlot plot{"Largest |attention logit| per block, against f16", "step", "max |q k^T / sqrt(d)| (log scale)", true, {}, {},
                          {{kF16Max, "f16 max 65504", "#c0392b"},
                           {logit_limit, "65504 / sqrt(" + lesson::fmt(head_dim) + "): the composite's q k^T overflows", "#e8862a"}}};
    const auto add = [&](const std::string& name, const train::GptResult& r, std::size_t block, const char* color) {
        lesson::Series s{name + ", block " + std::to_string(block), {}, {}, color, true};
        for (const train::GptEval& e : r.evals) {
            s.x.push_back(double(e.step));
            s.y.push_back(e.blocks[block].attention_logits.max_abs);
        }
        plot.series.push_back(s);
    };
    add("step 2, f32", normal[0].result, 0, "#3c78dc");
    add("step 2, f32", normal[0].result, 1, "#7fa7e8");
    add("provoked, bf16", bf16_run, 0, "#2a9d5c");
    add("provoked, bf16", bf16_run, 1, "#7cc79a");
    add("provoked, f16 fused", fused, 0, "#8e44ad");
    add("provoked, f16 fused", fused, 1, "#c39bd3");
    L.write_plot("logits", plot,
                 "The largest attention logit of each block at each evaluation: the normal GPT stays below 1; the provoked one "
                 "sits past 65504 / sqrt(8), where the composite f16 attention overflows, a little below f16's 65504 itself.");
    lesson::LinePlot scales{"The GradScaler's scale, provoked GPT", "step", "scale (log)", true, {}, {}, {}};
    const auto add_scale = [&](const std::string& name, const train::GptResult& r, const char* color) {
        lesson::Series s{name, {}, {}, color, true};
        for (const train::GptStep& st : r.steps) {
            s.x.push_back(double(st.step));
            s.y.push_back(st.scale);
        }
        scales.series.push_back(s);
    };
    add_scale("f16 + scaler, composite (forward overflow)", scaled, "#c0392b");
    add_scale("f16 + scaler, fused", fused, "#8e44ad");
    L.write_plot("scale", scales,
                 "The scale of each step: with the composite attention every step overflows in the forward pass and the scale "
                 "halves without end; with the fused attention it settles after a few backward overflows.");
    L.key_result("provoked logits (" + lesson::fmt(scaled.evals.front().blocks[0].attention_logits.max_abs) +
                 "), composite f16: every step skipped, the scale halves to " + lesson::fmt(scaled.steps.back().scale) +
                 "; bf16 and fused f16 train");
}

void run(lesson::Lesson& L)
{
    L.say("In a transformer, the numbers that outgrow f16 first are the attention logits q k^T / sqrt(d): each is\n"
          "a dot product of two vectors the model learns, and nothing bounds them. A model in f16 is as safe as\n"
          "the dtype those logits are kept in.");
    step_logits(L);
    const std::vector<GptRun> runs = step_four_modes(L);
    step_small_loss(L);
    step_provoke(L, runs);
}

const lesson::Registration registered{{20, "gpt_precision", "A small GPT in every precision",
                                       "where f16 breaks in a transformer (the attention logits), and why bf16 and scaling save it", run}};

}  // namespace
