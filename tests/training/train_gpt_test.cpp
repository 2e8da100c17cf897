// tinyamp-train's GPT (training/gpt_model.cpp, gpt_trainer.cpp): the model's shape, names and
// causality, the range statistics, and short training runs in each precision mode.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include <tinyamp/tinyamp.h>

#include "tests/support/expect_error.h"
#include "tests/support/temp_dir.h"
#include "training/gpt_trainer.h"

using namespace tinyamp;
using namespace tinyamp::train;

namespace {

GptConfig tiny_model(std::int64_t vocab = 11)
{
    return GptConfig{.vocab_size = vocab, .block_size = 16, .n_layer = 2, .n_head = 2, .n_embd = 16};
}

// A run small enough for a unit test: 2 blocks of width 32, 8 sequences of 32 characters.
GptTrainConfig short_run(Mode mode, std::int64_t steps)
{
    GptTrainConfig c;
    c.mode = mode;
    c.model = GptConfig{.block_size = 32, .n_layer = 2, .n_head = 2, .n_embd = 32};
    c.steps = steps;
    c.batch_size = 8;
    c.lr = 3e-3;
    c.min_lr = 3e-4;
    c.warmup_steps = 5;
    c.eval_interval = std::max<std::int64_t>(steps, 1);
    c.eval_batches = 2;
    c.sample_chars = 20;
    return c;
}

}  // namespace

TEST_CASE("gpt: logits have shape [B, T, vocab] and the parameters carry nanoGPT's names")
{
    manual_seed(0);
    Gpt model(tiny_model());
    const Tensor logits = model(tensor({1, 2, 3, 4, 5, 6}, {2, 3}, i64));
    CHECK(logits.shape() == Shape{2, 3, 11});
    std::vector<std::string> names;
    for (const auto& [name, p] : model.named_parameters()) names.push_back(name);
    for (const char* expected : {"wte.weight", "wpe.weight", "h.0.ln_1.weight", "h.0.attn.c_attn.weight", "h.0.attn.c_proj.bias",
                                 "h.1.c_fc.weight", "h.1.c_proj.weight", "ln_f.bias", "lm_head.weight"})
        CHECK_MESSAGE(std::find(names.begin(), names.end(), expected) != names.end(), expected);
    // 16*11 + 16*16 embeddings, per block 2 LayerNorms (2*32), attention (16*48+48 + 16*16+16),
    // MLP (16*64+64 + 64*16+16), then ln_f (32) and the head (16*11, no bias).
    const std::int64_t block = 64 + (768 + 48 + 256 + 16) + (1024 + 64 + 1024 + 16);
    CHECK(model.num_parameters() == 176 + 256 + 2 * block + 32 + 176);
}

TEST_CASE("gpt: a position's logits do not depend on later tokens (causal)")
{
    manual_seed(1);
    Gpt model(tiny_model());
    const Tensor a = model(tensor({1, 2, 3, 4, 5}, {1, 5}, i64));
    const Tensor b = model(tensor({1, 2, 3, 9, 0}, {1, 5}, i64));
    const std::vector<double> va = a.narrow(1, 0, 3).to_vector(), vb = b.narrow(1, 0, 3).to_vector();
    CHECK(va == vb);
    CHECK(a.select(1, 3).to_vector() != b.select(1, 3).to_vector());
}

TEST_CASE("gpt: bad input names the problem")
{
    manual_seed(0);
    Gpt model(tiny_model());
    CHECK_THROWS_WITH_AS(model(zeros({1, 17}, i64)), doctest::Contains("longer than block_size 16"), Error);
    CHECK_THROWS_WITH_AS(model(zeros({1, 4}, f32)), doctest::Contains("token indices [B, T] of dtype i64"), Error);
    CHECK_THROWS_WITH_AS(Gpt(GptConfig{.vocab_size = 5, .n_head = 3, .n_embd = 16}), doctest::Contains("multiple of n_head"), Error);
}

TEST_CASE("gpt: range statistics count overflow, underflow and non-finite values as f16 and bf16 would round them")
{
    const double inf = std::numeric_limits<double>::infinity();
    // 7e4 overflows f16 only; 1e-8 rounds to 0 in f16 (below 2^-25) but not in bf16; 2^-25 itself
    // is a tie that rounds to even (0); 1e-40 is a bf16 subnormal, 1e-45 rounds to 0 in bf16 too.
    const Tensor x = tensor(std::vector<double>{7e4, 1e-8, std::ldexp(1.0, -25), 1e-40, 1e-45, 0.0, -3.0, inf}, {8}, f64);
    const RangeStats s = range_stats(x);
    CHECK(s.count == 8);
    CHECK(s.nonfinite == 1);
    CHECK(s.max_abs == 7e4);
    CHECK(s.f16_overflow == doctest::Approx(1.0 / 8));
    CHECK(s.f16_underflow == doctest::Approx(4.0 / 8));
    CHECK(s.bf16_overflow == 0);
    CHECK(s.bf16_underflow == doctest::Approx(1.0 / 8));
    // Only where the mask keeps: the first two.
    const Tensor keep = tensor(std::vector<double>{1, 1, 0, 0, 0, 0, 0, 0}, {8}, f64).to(DType::boolean);
    const RangeStats k = range_stats(x, keep);
    CHECK(k.count == 2);
    CHECK(k.f16_overflow == doctest::Approx(0.5));
    RangeStats merged = k;
    merge(merged, s);
    CHECK(merged.count == 10);
    CHECK(merged.f16_overflow == doctest::Approx(2.0 / 10));
}

TEST_CASE("gpt: a short f32 run learns, evaluates with per-block statistics, and repeats exactly for a seed")
{
    const GptTrainConfig config = short_run(Mode::f32, 40);
    const GptResult r = run_gpt_training(config);
    REQUIRE(r.steps.size() == 40);
    REQUIRE(r.evals.size() == 1);
    CHECK(r.vocab_size == 62);
    CHECK(r.steps.back().loss < r.steps.front().loss - 1.0);  // from about ln 62 = 4.1
    CHECK(r.evals[0].val_loss < 3.4);
    REQUIRE(r.evals[0].blocks.size() == 2);
    CHECK(r.evals[0].blocks[0].attention_logits.count == 8 * 2 * (32 * 33 / 2));  // B * heads * causal pairs
    CHECK(r.evals[0].blocks[1].activations.max_abs > 0);
    REQUIRE(r.evals[0].grad_underflow.size() == 3);
    for (double g : r.evals[0].grad_underflow) CHECK(g == 0);  // f32 against itself
    CHECK(r.sample.size() == 20);
    // The warmup then the cosine: the lr rises for 5 steps, then falls to min_lr at the last.
    CHECK(r.steps[4].lr == doctest::Approx(3e-3 * 5.0 / 6.0));
    CHECK(r.steps.back().lr == doctest::Approx(3e-4));

    const GptResult again = run_gpt_training(config);
    CHECK(again.steps.back().loss == r.steps.back().loss);
    CHECK(again.sample == r.sample);

    const std::string csv = gpt_steps_csv_header() + gpt_steps_csv(config, r);
    CHECK(std::count(csv.begin(), csv.end(), '\n') == 41);
    const std::string layers = gpt_layers_csv(config, r);
    CHECK(std::count(layers.begin(), layers.end(), '\n') == 2 * 2 + 3);
}

TEST_CASE("gpt: bf16 and f16 with a GradScaler train as f32 does, the f16 run keeps its scale")
{
    const GptResult f32_run = run_gpt_training(short_run(Mode::f32, 30));
    for (Mode mode : {Mode::bf16, Mode::f16_scaler}) {
        INFO(mode_name(mode));
        const GptResult r = run_gpt_training(short_run(mode, 30));
        CHECK(std::isfinite(r.evals.back().val_loss));
        CHECK(r.evals.back().val_loss == doctest::Approx(f32_run.evals.back().val_loss).epsilon(0.05));
        if (mode == Mode::f16_scaler) {
            CHECK(r.steps.front().scale == 65536);
            int skipped = 0;
            for (const GptStep& s : r.steps) skipped += s.skipped;
            CHECK(skipped < 3);
        }
    }
}

TEST_CASE("gpt: composite attention stores the logits in f16: a large init overflows them, the fused attention does not")
{
    // c_attn's weights at std 20 on LayerNorm's unit-variance output (width 64) give q and k of
    // std 20 * 8 = 160, so logits q.k / sqrt(32) of std 160^2 = 25600: a few pass 65504. Step 0:
    // the evaluation of the initial model only.
    GptTrainConfig config = short_run(Mode::f16_no_scaler, 0);
    config.model.qkv_init_std = 20.0;
    config.model.n_embd = 64;
    config.sample_chars = 0;
    config.model.fused_attention = true;
    const GptResult fused = run_gpt_training(config);
    config.model.fused_attention = false;
    const GptResult composite = run_gpt_training(config);
    const BlockStats& f = fused.evals.back().blocks[0];
    const BlockStats& c = composite.evals.back().blocks[0];
    INFO("fused max |logit| " << f.attention_logits.max_abs << ", composite " << c.attention_logits.max_abs);
    CHECK(f.attention_logits.f16_overflow > 0);  // the values exist either way; only where they are stored differs
    CHECK(std::isfinite(fused.evals.back().val_loss));
    CHECK_FALSE(std::isfinite(composite.evals.back().val_loss));
}

TEST_CASE("gpt: a run stopped at a checkpoint and resumed ends exactly as one that never stopped")
{
    const test::TempDir dir;
    const std::string path = dir.file("gpt.safetensors");
    GptTrainConfig straight = short_run(Mode::f16_scaler, 12);  // the scaler's state and the LR schedule must come back too
    straight.eval_interval = 6;
    straight.sample_chars = 0;
    const GptResult whole = run_gpt_training(straight);

    GptTrainConfig first = straight;
    first.steps = 6;
    first.checkpoint_path = path;
    (void)run_gpt_training(first);  // saves at its evaluation, after step 6

    GptTrainConfig second = straight;
    second.resume_path = path;
    const GptResult resumed = run_gpt_training(second);
    CHECK(resumed.first_step == 7);
    REQUIRE(resumed.steps.size() == 6);
    for (std::size_t i = 0; i < resumed.steps.size(); ++i) {
        CHECK(resumed.steps[i].step == whole.steps[i + 6].step);
        CHECK(resumed.steps[i].loss == whole.steps[i + 6].loss);  // the same batches, weights and learning rate
        CHECK(resumed.steps[i].lr == whole.steps[i + 6].lr);
        CHECK(resumed.steps[i].scale == whole.steps[i + 6].scale);
    }
    CHECK(resumed.evals.back().val_loss == whole.evals.back().val_loss);

    // Asking for fewer steps than the checkpoint holds is refused, naming both.
    GptTrainConfig too_short = straight;
    too_short.steps = 4;
    too_short.resume_path = path;
    const std::string message = test::error_message([&] { (void)run_gpt_training(too_short); }, ErrorKind::value);
    CHECK(message.find("is at step 6, beyond --steps 4") != std::string::npos);
}

TEST_CASE("gpt: GptStepper's steps are run_gpt_training's, bit for bit (what tinyamp-bench times)")
{
    for (Mode mode : {Mode::f32, Mode::bf16, Mode::f16_scaler}) {
        CAPTURE(mode_name(mode));
        GptTrainConfig config = short_run(mode, 3);
        config.sample_chars = 0;
        const GptResult whole = run_gpt_training(config);
        GptStepper stepper(config);
        CHECK(stepper.parameters() == whole.parameters);
        for (const GptStep& expected : whole.steps) {
            const GptStep got = stepper.step();
            CHECK(got.step == expected.step);
            CHECK(got.loss == expected.loss);
            CHECK(got.lr == expected.lr);
            CHECK(got.grad_norm == expected.grad_norm);
            CHECK(got.scale == expected.scale);
        }
    }
    GptTrainConfig bad = short_run(Mode::f32, 3);
    bad.batch_size = 0;
    CHECK_THROWS_AS(GptStepper{bad}, Error);
}
