// tinyamp-train's loop (training/trainer.cpp), run for a few epochs on the digits.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>

#include <tinyamp/tinyamp.h>

#include "tests/support/temp_dir.h"
#include "training/trainer.h"

using namespace tinyamp;
using namespace tinyamp::train;

namespace {

TrainConfig short_run(Mode mode, std::int64_t epochs)
{
    TrainConfig config;
    config.mode = mode;
    config.epochs = epochs;
    return config;
}

}  // namespace

TEST_CASE("train: two f32 epochs of the MLP learn the digits and fill every statistic")
{
    const TrainResult r = run_training(short_run(Mode::f32, 2));
    REQUIRE(r.epochs.size() == 2);
    CHECK(r.epochs[1].train_loss < r.epochs[0].train_loss);
    CHECK(r.epochs[1].test_accuracy > 0.8);
    CHECK(r.epochs[1].scale == 1);
    CHECK(r.epochs[1].skipped_steps == 0);
    CHECK(r.epochs[1].underflow_fraction == 0);  // f32 against itself
    CHECK(r.epochs[1].zero_grad_fraction > 0);   // ReLU and always-blank pixels give exact zeros
    CHECK(r.epochs[1].peak_activation_bytes > 0);
    CHECK(r.scale_history.empty());

    const std::string csv = csv_header() + csv_rows(short_run(Mode::f32, 2), r);
    CHECK(std::count(csv.begin(), csv.end(), '\n') == 3);
    CHECK(csv.rfind("f32,mlp,2,", std::string::npos) != std::string::npos);
}

TEST_CASE("train: without a GradScaler, f16 loses measurably more gradients to underflow than with one")
{
    const TrainResult with = run_training(short_run(Mode::f16_scaler, 2));
    const TrainResult without = run_training(short_run(Mode::f16_no_scaler, 2));
    CHECK(with.epochs[1].scale == 65536);
    CHECK(with.scale_history.size() == 23 * 2);  // one entry per update(): 23 batches of 64 per epoch
    CHECK(without.epochs[1].underflow_fraction > 0.001);
    CHECK(without.epochs[1].underflow_fraction > 10 * with.epochs[1].underflow_fraction);
    CHECK(without.epochs[1].zero_grad_fraction > with.epochs[1].zero_grad_fraction);
}

TEST_CASE("train: the FP8 modes learn the digits in two epochs, with every Linear run through fp8_linear")
{
    for (Mode mode : fp8_modes()) {
        CAPTURE(mode_name(mode));
        CHECK(parse_mode(mode_name(mode)) == mode);
        const TrainResult r = run_training(short_run(mode, 2));
        CHECK(r.epochs[1].test_accuracy > 0.8);
        CHECK(r.epochs[1].train_loss < r.epochs[0].train_loss);
        CHECK(r.epochs[1].skipped_steps == 0);  // no GradScaler: the scales are the recipe's
    }
}

TEST_CASE("train: stopping after epoch 1 and resuming from the checkpoint gives the same epoch 2")
{
    const test::TempDir dir;
    const std::string path = dir.file("resume.safetensors");
    const TrainResult straight = run_training(short_run(Mode::f16_scaler, 2));

    TrainConfig first = short_run(Mode::f16_scaler, 1);
    first.checkpoint_path = path;
    run_training(first);
    TrainConfig second = short_run(Mode::f16_scaler, 2);
    second.resume_path = path;
    const TrainResult resumed = run_training(second);
    REQUIRE(resumed.epochs.size() == 1);
    CHECK(resumed.first_epoch == 2);
    CHECK(resumed.epochs[0].train_loss == straight.epochs[1].train_loss);
    CHECK(resumed.epochs[0].test_loss == straight.epochs[1].test_loss);
    CHECK(resumed.epochs[0].scale == straight.epochs[1].scale);
}

TEST_CASE("train: the CNN trains in bf16 autocast, and bad settings are refused by name")
{
    TrainConfig config = short_run(Mode::bf16, 2);
    config.model = ModelKind::cnn;
    const TrainResult r = run_training(config);
    CHECK(r.epochs[1].test_accuracy > 0.6);
    CHECK_THROWS_WITH_AS(parse_mode("fp8"), doctest::Contains("choose f32, bf16, f16-scaler, f16-no-scaler, fp8-current, fp8-delayed, mxfp8, mxfp4 or nvfp4"), Error);
    CHECK_THROWS_WITH_AS(parse_model("resnet"), doctest::Contains("choose mlp, cnn or gpt"), Error);
    TrainConfig bad_policy = short_run(Mode::bf16, 1);
    bad_policy.policy = "tpu";
    CHECK_THROWS_WITH_AS(run_training(bad_policy), doctest::Contains("unknown policy 'tpu'"), Error);
}
