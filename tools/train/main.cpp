// tinyamp-train: trains an MLP or a small CNN on the 8x8 digits and prints, per epoch, the loss,
// test accuracy, loss scale, skipped steps, zero/underflowed gradients, time and peak activation
// memory. `--mode all` runs the four modes one after another and ends with a comparison table.
// `--model gpt` trains a character-level GPT on the King James text instead (gpt_trainer.h), and
// prints per evaluation the attention logits' and activations' ranges per block.
//
//     tinyamp-train --model mlp --mode f16-scaler --epochs 30 --csv curves.csv
//     tinyamp-train --model gpt --mode all --steps 1500 --csv gpt --plots
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>

#include <CLI/CLI.hpp>

#include "training/gpt_report.h"
#include "training/progress.h"
#include "training/trainer.h"

using namespace tinyamp;
using namespace tinyamp::train;

namespace {

void print_epoch(const TrainConfig& config, const EpochStats& e)
{
    std::printf("%-13s epoch %3lld/%lld  train loss %.4f  test loss %.4f  test acc %6.2f%%  scale %-8g skipped %lld  "
                "zero grads %5.2f%%  underflow %5.2f%%  %.2f s  peak act %s\n",
                mode_name(config.mode), static_cast<long long>(e.epoch), static_cast<long long>(config.epochs), e.train_loss,
                e.test_loss, 100 * e.test_accuracy, e.scale, static_cast<long long>(e.skipped_steps), 100 * e.zero_grad_fraction,
                100 * e.underflow_fraction, e.seconds, format_bytes(e.peak_activation_bytes).c_str());
    std::fflush(stdout);
}

double median_seconds(const TrainResult& r)
{
    std::vector<double> s;
    for (const EpochStats& e : r.epochs) s.push_back(e.seconds);
    return median(s);
}

// --model gpt: every mode asked for, one after another, then the comparison table, the CSV files
// (PREFIX_steps.csv, PREFIX_evals.csv, PREFIX_layers.csv) and the pictures (PREFIX_*.svg).
int run_gpt(GptTrainConfig config, const std::vector<Mode>& modes, const std::string& csv_prefix, bool plots, double expect_val_loss,
            bool progress)
{
    std::string steps_csv = gpt_steps_csv_header(), evals_csv = gpt_evals_csv_header(), layers_csv = gpt_layers_csv_header();
    std::vector<GptRunRecord> runs;
    ProgressBar bar(std::cerr, progress);
    for (Mode m : modes) {
        config.mode = m;
        GptCallbacks callbacks;
        callbacks.on_step = [&](const GptStep& s) { bar.update(std::string(mode_name(m)) + " step", s.step, config.steps, s.loss); };
        callbacks.on_eval = [&](const GptEval& e) {
            bar.clear();
            print_gpt_eval(config, e);
        };
        runs.push_back({config, run_gpt_training(config, callbacks)});
        bar.clear();
        std::printf("%s: %lld parameters, vocabulary %lld; sample: %s\n", mode_name(m), static_cast<long long>(runs.back().result.parameters),
                    static_cast<long long>(runs.back().result.vocab_size), runs.back().result.sample.c_str());
        steps_csv += gpt_steps_csv(config, runs.back().result);
        evals_csv += gpt_evals_csv(config, runs.back().result);
        layers_csv += gpt_layers_csv(config, runs.back().result);
    }
    if (!csv_prefix.empty()) {
        for (const auto& [suffix, text] : {std::pair{"_steps.csv", &steps_csv}, {"_evals.csv", &evals_csv}, {"_layers.csv", &layers_csv}}) {
            io::write_file_atomically(csv_prefix + suffix, *text);
            std::printf("wrote %s%s\n", csv_prefix.c_str(), suffix);
        }
    }
    if (plots)
        for (const std::string& path : write_gpt_plots(runs, csv_prefix)) std::printf("wrote %s\n", path.c_str());
    print_gpt_summary(runs);
    bool ok = true;
    for (const GptRunRecord& r : runs) {
        const double val = r.result.evals.empty() ? 0.0 : r.result.evals.back().val_loss;
        if (expect_val_loss > 0 && !(val <= expect_val_loss)) {
            std::printf("  %s: validation loss %.4f is above the expected %.4f\n", mode_name(r.config.mode), val, expect_val_loss);
            ok = false;
        }
    }
    return ok ? 0 : 1;
}

// --model mlp or cnn: the comparison table of the runs, one row a mode; whether every run reached
// --expect-accuracy.
bool print_digits_summary(const std::vector<std::pair<Mode, TrainResult>>& results, double expect_accuracy)
{
    std::printf("\n%-14s %9s %8s %11s %10s %9s %10s %12s\n", "mode", "test acc", "skipped", "zero grads", "underflow",
                "final", "s/epoch", "peak act");
    bool ok = true;
    for (const auto& [m, r] : results) {
        if (r.epochs.empty()) continue;
        const EpochStats& last = r.epochs.back();
        std::int64_t skipped = 0;
        double zero = 0, underflow = 0;
        std::int64_t peak = 0;
        for (const EpochStats& e : r.epochs) {
            skipped += e.skipped_steps;
            zero += e.zero_grad_fraction / double(r.epochs.size());
            underflow += e.underflow_fraction / double(r.epochs.size());
            peak = std::max(peak, e.peak_activation_bytes);
        }
        std::printf("%-14s %8.2f%% %8lld %10.2f%% %9.2f%% %9g %10.3f %12s\n", mode_name(m), 100 * last.test_accuracy,
                    static_cast<long long>(skipped), 100 * zero, 100 * underflow, last.scale, median_seconds(r),
                    format_bytes(peak).c_str());
        if (!(last.test_accuracy >= expect_accuracy)) {
            std::printf("  %s: test accuracy %.2f%% is below the expected %.2f%%\n", mode_name(m), 100 * last.test_accuracy,
                        100 * expect_accuracy);
            ok = false;
        }
    }
    std::printf("(zero grads and underflow: means over the epochs; s/epoch: median; final: the loss scale at the end)\n");
    return ok;
}

// --model mlp or cnn: every mode asked for, one after another, the CSV file, then the comparison table.
int run_digits(TrainConfig config, const std::vector<Mode>& modes, const std::string& csv_path, double expect_accuracy, bool progress)
{
    std::string csv = csv_header();
    std::vector<std::pair<Mode, TrainResult>> results;
    ProgressBar bar(std::cerr, progress);
    for (Mode m : modes) {
        config.mode = m;
        TrainCallbacks callbacks;
        callbacks.on_step = [&](std::int64_t epoch, std::int64_t step, std::int64_t steps, double loss) {
            bar.update(std::string(mode_name(m)) + " epoch " + std::to_string(epoch), step, steps, loss);
        };
        callbacks.on_epoch = [&](const EpochStats& e) {
            bar.clear();
            print_epoch(config, e);
        };
        results.emplace_back(m, run_training(config, callbacks));
        csv += csv_rows(config, results.back().second);
    }
    if (!csv_path.empty()) {
        io::write_file_atomically(csv_path, csv);
        std::printf("wrote %s\n", csv_path.c_str());
    }
    return print_digits_summary(results, expect_accuracy) ? 0 : 1;
}

// The command line: the digits models' settings, the GPT's, and what main does with the runs.
struct CommandLine {
    TrainConfig config;  // mlp, cnn; the options the GPT shares with them too
    GptTrainConfig gpt;
    std::string model = "mlp", mode = "f32", csv_path, attention = "fused";
    double expect_accuracy = 0, expect_val_loss = 0;
    bool no_progress = false, plots = false;
};

// The options of the digits models, and those the GPT shares with them.
void add_digits_options(CLI::App& app, CommandLine& line)
{
    TrainConfig& config = line.config;
    app.add_option("--model", line.model, "mlp (64-256-256-10), cnn (two 3x3 convolutions), or gpt (a character-level GPT on the King James text)")
        ->capture_default_str();
    app.add_option("--mode", line.mode, "f32, bf16, f16-scaler, f16-no-scaler, or all (the four, then a comparison); fp8-current, fp8-delayed, "
                   "mxfp8 (Linear layers in FP8), or fp8 (those three); mxfp4, nvfp4 (Linear layers in FP4)")->capture_default_str();
    app.add_option("--epochs", config.epochs, "passes over the training set")->capture_default_str()->check(CLI::NonNegativeNumber);
    app.add_option("--batch-size", config.batch_size, "samples per step")->capture_default_str()->check(CLI::PositiveNumber);
    app.add_option("--lr", config.lr, "SGD learning rate")->capture_default_str()->check(CLI::NonNegativeNumber);
    app.add_option("--momentum", config.momentum, "SGD momentum")->capture_default_str()->check(CLI::Range(0.0, 1.0));
    app.add_option("--seed", config.seed, "seed of the split, the initial weights and the shuffles")->capture_default_str();
    app.add_option("--test-fraction", config.test_fraction, "share of the samples held out for testing")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 1.0));
    app.add_option("--policy", config.policy, "autocast lists: cpu (PyTorch's CPU lists) or cuda (the GPU's, emulated)")
        ->capture_default_str();
    app.add_option("--init-scale", config.scaler.init_scale, "GradScaler: initial scale")->capture_default_str();
    app.add_option("--growth-interval", config.scaler.growth_interval, "GradScaler: clean steps before the scale doubles")
        ->capture_default_str();
    app.add_option("--csv", line.csv_path, "write the per-epoch curves to this CSV file");
    app.add_option("--checkpoint", config.checkpoint_path,
                   "save model, optimizer, scaler (and the GPT's LR schedule) here after every epoch, or every GPT evaluation (atomically)");
    app.add_option("--resume", config.resume_path, "continue from this checkpoint (same model, mode and settings)");
    app.add_option("--data", config.data_file, "the digits file (default: the project's data/digits.csv.gz)");
    app.add_option("--expect-accuracy", line.expect_accuracy, "exit with status 1 if a run's final test accuracy is below this fraction");
    app.add_flag("--no-progress", line.no_progress, "no progress bar (it is drawn only on a terminal anyway)");
}

// --model gpt's own options. It shares the digits options --mode, --seed, --policy, --init-scale,
// --growth-interval, --data, --checkpoint, --resume, --csv, which names a prefix here; --batch-size
// and --lr keep the GPT's defaults unless given.
void add_gpt_options(CLI::App& app, CommandLine& line)
{
    GptTrainConfig& gpt = line.gpt;
    app.add_option("--steps", gpt.steps, "gpt: optimizer steps")->capture_default_str()->check(CLI::NonNegativeNumber);
    app.add_option("--block-size", gpt.model.block_size, "gpt: context length in characters")->capture_default_str()->check(CLI::PositiveNumber);
    app.add_option("--n-layer", gpt.model.n_layer, "gpt: transformer blocks")->capture_default_str()->check(CLI::PositiveNumber);
    app.add_option("--n-head", gpt.model.n_head, "gpt: attention heads")->capture_default_str()->check(CLI::PositiveNumber);
    app.add_option("--n-embd", gpt.model.n_embd, "gpt: width")->capture_default_str()->check(CLI::PositiveNumber);
    app.add_option("--init-std", gpt.model.init_std, "gpt: std of the initial weights (larger grows the attention logits)")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    app.add_option("--qkv-init-std", gpt.model.qkv_init_std, "gpt: std of the attention's q/k/v projection only (0: --init-std); "
                   "large values push the logits past f16's range")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    app.add_option("--attention", line.attention, "gpt: fused (scaled_dot_product_attention, f32 inside) or composite (matmul, softmax, matmul)")
        ->capture_default_str();
    app.add_option("--warmup-steps", gpt.warmup_steps, "gpt: linear warmup steps")->capture_default_str()->check(CLI::NonNegativeNumber);
    app.add_option("--min-lr", gpt.min_lr, "gpt: learning rate at the end of the cosine decay")->capture_default_str();
    app.add_option("--weight-decay", gpt.weight_decay, "gpt: AdamW weight decay")->capture_default_str();
    app.add_option("--grad-clip", gpt.grad_clip, "gpt: max gradient norm (0: off)")->capture_default_str();
    app.add_option("--eval-interval", gpt.eval_interval, "gpt: steps between evaluations")->capture_default_str()->check(CLI::PositiveNumber);
    app.add_option("--eval-batches", gpt.eval_batches, "gpt: batches per split in an evaluation")->capture_default_str()->check(CLI::PositiveNumber);
    app.add_option("--sample-chars", gpt.sample_chars, "gpt: characters to generate at the end")->capture_default_str();
    app.add_flag("--plots", line.plots, "gpt: also draw the curves as SVG pictures, PREFIX_loss.svg, PREFIX_logits.svg, PREFIX_scale.svg (needs --csv PREFIX)");
    app.add_option("--expect-val-loss", line.expect_val_loss, "gpt: exit with status 1 if a run's final validation loss is above this");
}

// An option of the other model would be ignored silently: refuse it instead.
void refuse_other_models_options(const CLI::App& app, const std::string& model)
{
    const std::vector<std::string> digits_only = {"--epochs", "--momentum", "--test-fraction", "--expect-accuracy"};
    const std::vector<std::string> gpt_only = {"--steps", "--block-size", "--n-layer", "--n-head", "--n-embd", "--init-std", "--qkv-init-std",
                                               "--attention", "--warmup-steps", "--min-lr", "--weight-decay", "--grad-clip",
                                               "--eval-interval", "--eval-batches", "--sample-chars", "--plots", "--expect-val-loss"};
    for (const std::string& option : model == "gpt" ? digits_only : gpt_only)
        TINYAMP_CHECK(app.count(option) == 0, value, option, (model == "gpt" ? " is an option of the digits models (mlp, cnn), not of --model gpt"
                                                                             : " is an option of --model gpt, not of the digits models"));
}

// The GPT's settings: its own options, and those it shares with the digits models.
GptTrainConfig gpt_config(const CLI::App& app, const CommandLine& line)
{
    TINYAMP_CHECK(line.attention == "fused" || line.attention == "composite", value, "unknown --attention '", line.attention,
                  "': choose fused or composite");
    TINYAMP_CHECK(!line.plots || !line.csv_path.empty(), value, "--plots names its pictures after the CSV files: give --csv PREFIX too");
    GptTrainConfig gpt = line.gpt;
    const TrainConfig& config = line.config;
    gpt.model.fused_attention = line.attention == "fused";
    gpt.seed = config.seed;
    gpt.policy = config.policy;
    gpt.scaler = config.scaler;
    gpt.data_file = config.data_file;
    gpt.checkpoint_path = config.checkpoint_path;
    gpt.resume_path = config.resume_path;
    if (app.count("--batch-size")) gpt.batch_size = config.batch_size;
    if (app.count("--lr")) gpt.lr = config.lr;
    return gpt;
}

}  // namespace

int main(int argc, char** argv)
{
    CLI::App app{"tinyamp-train: mixed-precision training on the digits data set, in four modes"};
    CommandLine line;
    add_digits_options(app, line);
    add_gpt_options(app, line);
    CLI11_PARSE(app, argc, argv);

    try {
        refuse_other_models_options(app, line.model);
        const std::string& mode = line.mode;
        const std::vector<Mode> modes = mode == "all" ? all_modes() : mode == "fp8" ? fp8_modes() : std::vector<Mode>{parse_mode(mode)};
        TINYAMP_CHECK(modes.size() == 1 || (line.config.checkpoint_path.empty() && line.config.resume_path.empty()), value,
                      "--checkpoint and --resume take one mode; pick it with --mode");
        const bool progress = !line.no_progress && isatty(STDERR_FILENO);
        if (line.model == "gpt") return run_gpt(gpt_config(app, line), modes, line.csv_path, line.plots, line.expect_val_loss, progress);
        line.config.model = parse_model(line.model);
        return run_digits(line.config, modes, line.csv_path, line.expect_accuracy, progress);
    } catch (const Error& e) {
        std::fprintf(stderr, "tinyamp-train: %s\n", e.what());
        return 2;
    }
}
