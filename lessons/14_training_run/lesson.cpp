// Lesson 14: a real training run, the digits MLP of tinyamp-train, four ways: f32, bf16 autocast,
// f16 autocast + GradScaler, and f16 autocast without a scaler. Accuracy, the scaler's work,
// time per epoch, and where autocast's memory goes (activations shrink; a bf16 copy of the
// weights is added).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lessons/support/lesson.h"
#include "training/trainer.h"

using namespace tinyamp;

namespace {

constexpr std::int64_t kEpochs = 8;

struct ModeRun {
    train::Mode mode;
    train::TrainResult result;
    std::vector<double> step_losses;  // the loss of every training step, in order
};

ModeRun train_mode(train::Mode mode)
{
    train::TrainConfig config;  // MLP 64-256-256-10, batch 64, SGD lr 0.05 momentum 0.9, seed 0
    config.mode = mode;
    config.epochs = kEpochs;
    ModeRun run{mode, {}, {}};
    double previous_mean = 0;
    train::TrainCallbacks callbacks;
    // The loop reports the running mean of the epoch's losses after each step; the step's own
    // loss is what moved that mean: step * mean_now - (step - 1) * mean_before.
    callbacks.on_step = [&](std::int64_t, std::int64_t step, std::int64_t, double mean) {
        run.step_losses.push_back(double(step) * mean - double(step - 1) * previous_mean);
        previous_mean = mean;
    };
    run.result = train::run_training(config, callbacks);
    return run;
}

const train::EpochStats& last(const ModeRun& run) { return run.result.epochs.back(); }

double median_seconds(const ModeRun& run)
{
    std::vector<double> s;
    for (const train::EpochStats& e : run.result.epochs) s.push_back(e.seconds);
    std::sort(s.begin(), s.end());
    return s[s.size() / 2];
}

std::string kib(double bytes)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.1f KiB", bytes / 1024.0);
    return text;
}

std::string percent(double fraction)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.2f%%", 100.0 * fraction);
    return text;
}

// The memory one forward pass (model + loss) adds, as tinyamp's allocator counts it: everything
// alive at its peak that was not alive before (activations saved for backward, temporaries, and
// under autocast the casts, the cached bf16 weights among them).
struct ForwardMemory {
    std::int64_t peak = 0;         // all dtypes
    std::int64_t cache_bytes = 0;  // the bf16 copies of the parameters in the cast cache
    std::size_t cached = 0;        // how many casts the cache held
};

ForwardMemory measure_forward(nn::Module& model, const Tensor& x, const Tensor& y, bool bf16_autocast)
{
    ForwardMemory m;
    const std::int64_t live_before = memory_stats().total.live_bytes;
    reset_peak_memory_stats();
    std::optional<amp::autocast> region;
    if (bf16_autocast) region.emplace("cpu", amp::AutocastOptions{.dtype = bf16});
    const Tensor loss = cross_entropy(model(x), y);
    m.peak = memory_stats().total.peak_bytes - live_before;
    m.cached = amp::autocast_cache_size();
    if (bf16_autocast) m.cache_bytes = model.num_parameters() * traits(bf16).size;
    return m;
}

// Returns the four runs: f32, bf16, f16 + GradScaler, f16 without a scaler.
std::vector<ModeRun> step_train_four_ways(lesson::Lesson& L)
{
    L.step("Train four ways");
    L.expect("All four reach well over 90% test accuracy in 8 epochs, within a point or two of each other:\n"
             "autocast changes the arithmetic of the matrix products, not what the model can learn. The loss\n"
             "curves lie almost on top of each other.");
    std::vector<ModeRun> runs;
    for (train::Mode mode : train::all_modes()) runs.push_back(train_mode(mode));
    std::printf("   %-14s %9s %11s %10s %8s %13s %11s\n", "mode", "test acc", "train loss", "s/epoch", "skipped", "final scale",
                "underflow");
    for (const ModeRun& r : runs) {
        std::int64_t skipped = 0;
        for (const train::EpochStats& e : r.result.epochs) skipped += e.skipped_steps;
        std::printf("   %-14s %9s %11.4f %10.4f %8lld %13g %11s\n", train::mode_name(r.mode), percent(last(r).test_accuracy).c_str(),
                    last(r).train_loss, median_seconds(r), static_cast<long long>(skipped), last(r).scale,
                    percent(last(r).underflow_fraction).c_str());
    }
    const ModeRun& f32_run = runs[0];
    const ModeRun& bf16_run = runs[1];
    const ModeRun& scaled = runs[2];
    const ModeRun& unscaled = runs[3];
    bool all_learn = true, losses_fell = true;
    for (const ModeRun& r : runs) {
        all_learn = all_learn && last(r).test_accuracy > 0.90;
        losses_fell = losses_fell && last(r).train_loss < 0.5 * r.result.epochs.front().train_loss;
    }
    const double acc32 = last(f32_run).test_accuracy;
    L.check(all_learn, "every mode ends above 90% test accuracy");
    L.check(std::abs(last(bf16_run).test_accuracy - acc32) <= 0.02 && std::abs(last(scaled).test_accuracy - acc32) <= 0.02,
            "bf16 autocast and f16 autocast + GradScaler are within 2 points of f32");
    L.check(losses_fell, "in every mode the epoch's mean training loss falls by more than half from epoch 1 to epoch 8");

    lesson::LinePlot curves{"Training loss per step, digits MLP", "step", "loss (log scale)", true, {}, {}, {}};
    const char* colors[] = {"#3c78dc", "#e8862a", "#2a9d5c", "#c0392b"};
    for (std::size_t i = 0; i < runs.size(); ++i) {
        lesson::Series s{train::mode_name(runs[i].mode), {}, runs[i].step_losses, colors[i], false};
        for (std::size_t k = 0; k < s.y.size(); ++k) s.x.push_back(double(k + 1));
        curves.series.push_back(s);
    }
    L.write_plot("loss_curves", curves,
                 "The loss of every training step in the four modes: the curves overlap; mixed precision "
                 "did not change what the model learned.");
    L.key_result("digits MLP, 8 epochs: test accuracy f32 " + percent(acc32) + ", bf16 " + percent(last(bf16_run).test_accuracy) +
                 ", f16+scaler " + percent(last(scaled).test_accuracy) + ", f16 without scaler " +
                 percent(last(unscaled).test_accuracy));
    return runs;
}

void step_what_the_scaler_bought(lesson::Lesson& L, const std::vector<ModeRun>& runs)
{
    const ModeRun& scaled = runs[2];
    const ModeRun& unscaled = runs[3];
    L.step("What the GradScaler bought");
    L.expect("f16's smallest number is 6e-8, and many weight gradients of a mean loss are smaller. Without a\n"
             "scaler they come out exactly 0 (underflow, measured against f32 on a fixed batch), and the\n"
             "share grows as the model fits and its gradients shrink. With the scale 65536 they survive;\n"
             "no step overflowed, so none was skipped.");
    std::printf("   underflow share by epoch (f16 without / with scaler):");
    for (std::size_t e = 0; e < unscaled.result.epochs.size(); ++e)
        std::printf("%s %s/%s", e == 0 ? "" : ",", percent(unscaled.result.epochs[e].underflow_fraction).c_str(),
                    percent(scaled.result.epochs[e].underflow_fraction).c_str());
    std::printf("\n");
    const double lost = last(unscaled).underflow_fraction, kept = last(scaled).underflow_fraction;
    L.check(lost > 3.0 * kept && lost > 0.002, "without a scaler, f16 loses more than 3x the gradient elements it loses with one (and over 0.2%)");
    L.check(lost > unscaled.result.epochs.front().underflow_fraction, "without a scaler, underflow grows from epoch 1 to epoch 8");
    std::int64_t skipped = 0;
    for (const train::EpochStats& e : scaled.result.epochs) skipped += e.skipped_steps;
    L.check(skipped == 0 && last(scaled).scale == 65536.0,
            "with the scaler no step was skipped and the scale stayed 65536 (fewer than 2000 steps: no growth)");
    L.say("On this small, easy task the lost gradients do not yet cost accuracy; on a harder run they stall\n"
          "the layers whose gradients are smallest (lesson 11).");
    L.key_result("f16 without a scaler flushed " + percent(lost) + " of the gradient elements to 0 by epoch 8; with the scaler " +
                 percent(kept));
}

void step_time_per_epoch(lesson::Lesson& L, const std::vector<ModeRun>& runs)
{
    const ModeRun& f32_run = runs[0];
    L.step("Time per epoch");
    const backends::cpu::MatmulHardware& hw = backends::cpu::matmul_hardware();
    L.say("This CPU: " + hw.cpu_name + " (GEMM tiers: f32 " + hw.f32_tier + ", bf16 " + hw.bf16_tier +
          "). Timings on a shared 2-core machine are noisy: read\nthem as rough.");
    for (const ModeRun& r : runs)
        std::printf("   %-14s median %.4f s per epoch (%.2fx f32)\n", train::mode_name(r.mode), median_seconds(r),
                    median_seconds(r) / median_seconds(f32_run));
    // What the hardware should give (lesson 1 states it and checks it on a large product); the
    // epochs' times are printed, not checked.
    std::string why = "Here bf16 products are multiplied by " + hw.bf16_instruction + ": lesson 1 expects large bf16 products to be " +
                      backends::cpu::bf16_speed_name(hw.bf16_speed) + " than f32's";
    why += hw.bf16_speed == backends::cpu::Bf16Speed::not_faster
               ? ", so bf16 autocast can only add time here: its casts."
               : ". This model's products are small (a batch of 64 through 64-256-256-10), so the casts and each op's fixed costs "
                 "take much of what the faster products save.";
    L.say(lesson::wrap(why + " tinyamp's CPU kernels have no f16 arithmetic (few CPUs do), so f16 is converted to f32 and back "
                             "around every op, and the GradScaler adds a pass over the gradients. On a GPU with Tensor Cores f16 and "
                             "bf16 both beat f32 (lesson 16). A model this small is dominated by overheads (lesson 15)."));
}

void step_memory(lesson::Lesson& L)
{
    L.step("Memory: where autocast's bytes go");
    L.expect("The f32 weights stay (they are the master weights the optimizer updates), and so do their f32\n"
             "gradients and SGD's momentum. Autocast adds a bf16 copy of the 6 parameters for the step (the cast\n"
             "cache: 85,002 x 2 bytes) and about halves the activations. At batch 64 the copy outweighs the saving, so\n"
             "the forward's peak is higher than in f32; at batch 1024, activations dominate and autocast wins.");
    manual_seed(0);
    const std::shared_ptr<nn::Sequential> model = train::make_model(train::ModelKind::mlp);
    data::Dataset digits = data::load_digits(data::data_path("digits.csv.gz"));
    const std::int64_t params = model->num_parameters();
    std::printf("   always held: f32 weights %s, f32 gradients %s, SGD momentum %s\n", kib(4.0 * double(params)).c_str(),
                kib(4.0 * double(params)).c_str(), kib(4.0 * double(params)).c_str());
    std::printf("   %6s %14s %14s %18s %18s\n", "batch", "f32 forward", "bf16 forward", "bf16 weight copies", "bf16 activations");
    lesson::Series f32_series{"f32", {}, {}, "#3c78dc", true}, bf16_series{"bf16 autocast", {}, {}, "#e8862a", true};
    std::vector<ForwardMemory> f32_mem, bf16_mem;
    const std::vector<std::int64_t> batches{16, 64, 256, 1024};
    for (std::int64_t n : batches) {
        const Tensor x = div(digits.features.slice(0, 0, n).contiguous(), 16.0), y = digits.labels.slice(0, 0, n).contiguous();
        const ForwardMemory a = measure_forward(*model, x, y, false), b = measure_forward(*model, x, y, true);
        f32_mem.push_back(a);
        bf16_mem.push_back(b);
        std::printf("   %6lld %14s %14s %18s %18s\n", static_cast<long long>(n), kib(double(a.peak)).c_str(), kib(double(b.peak)).c_str(),
                    kib(double(b.cache_bytes)).c_str(), kib(double(b.peak - b.cache_bytes)).c_str());
        f32_series.x.push_back(double(n));
        f32_series.y.push_back(double(a.peak) / 1024.0);
        bf16_series.x.push_back(double(n));
        bf16_series.y.push_back(double(b.peak) / 1024.0);
    }
    // Where the lines cross: the copies' bytes over what each sample saves (from the largest batch).
    const double saved_per_sample =
        double(f32_mem.back().peak - (bf16_mem.back().peak - bf16_mem.back().cache_bytes)) / double(batches.back());
    std::printf("   each sample saves about %.0f bytes under autocast, so the %.0f KiB of copies pay off above a batch of about %.0f\n",
                saved_per_sample, double(bf16_mem.back().cache_bytes) / 1024.0, double(bf16_mem.back().cache_bytes) / saved_per_sample);
    L.check(bf16_mem[0].cached == 6 && f32_mem[0].cached == 0, "under autocast the cast cache held the 6 parameters' bf16 copies (none in f32)");
    bool activations_smaller = true;
    for (std::size_t i = 0; i < batches.size(); ++i)
        activations_smaller = activations_smaller && double(bf16_mem[i].peak - bf16_mem[i].cache_bytes) < 0.75 * double(f32_mem[i].peak);
    L.check(activations_smaller, "without the weight copies, autocast's forward holds under 75% of f32's at every batch size");
    L.check(bf16_mem[1].peak > f32_mem[1].peak, "at batch 64 autocast's forward peak is higher than f32's (the weight copies outweigh the saving)");
    L.check(bf16_mem[3].peak < f32_mem[3].peak, "at batch 1024 autocast's forward peak is lower than f32's");
    L.write_plot("forward_memory",
                 lesson::LinePlot{"Peak memory one forward pass adds, digits MLP", "batch size", "KiB", false, {f32_series, bf16_series}, {}, {}},
                 "The forward pass's peak memory against the batch size: autocast starts higher (a bf16 copy of "
                 "the weights) and grows half as fast (bf16 activations).");

    L.key_result("forward peak f32 vs bf16 autocast: " + kib(double(f32_mem[1].peak)) + " vs " + kib(double(bf16_mem[1].peak)) +
                 " at batch 64, " + kib(double(f32_mem[3].peak)) + " vs " + kib(double(bf16_mem[3].peak)) + " at batch 1024");
}

void run(lesson::Lesson& L)
{
    L.say("training/'s loop (tinyamp-train runs it) is PyTorch's AMP recipe: per batch, zero_grad; forward and loss\n"
          "inside autocast; scaler.scale(loss).backward(); scaler.step(optimizer); scaler.update().\n"
          "Here it trains the MLP 64-256-256-10 (85,002 parameters) on the 8x8 digits (1437 training and\n"
          "360 test images) for a few epochs, once per mode, with the same seed: same split, same initial\n"
          "weights, same batches.");
    const std::vector<ModeRun> runs = step_train_four_ways(L);
    step_what_the_scaler_bought(L, runs);
    step_time_per_epoch(L, runs);
    step_memory(L);
}

const lesson::Registration registered{{14, "training_run", "A real training run: f32 vs bf16 vs f16 + GradScaler",
                                       "a full AMP training run: accuracy, speed and memory against f32", run}};

}  // namespace
