#pragma once
// The training loop of tinyamp-train: the seeds' PyTorch AMP loop, written with tinyamp.
//
//     for each batch:
//         optimizer.zero_grad();
//         { amp::autocast ac("cpu", {.dtype = f16});  loss = cross_entropy(model(x), y); }
//         scaler.scale(loss).backward();
//         scaler.step(optimizer);       // skipped when a gradient is inf/NaN
//         scaler.update();
//
// Four modes show what each piece buys: f32 (the baseline), bf16 autocast (no scaler needed:
// bf16 has f32's range), f16 autocast with a GradScaler, and f16 autocast without one (small
// gradients underflow to zero in f16). Three more train the Linear layers in FP8 (below).

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <tinyamp/tinyamp.h>

#include "training/models.h"
#include "training/modes.h"

namespace tinyamp::train {


struct TrainConfig {
    ModelKind model = ModelKind::mlp;
    Mode mode = Mode::f32;
    std::int64_t epochs = 30;
    std::int64_t batch_size = 64;
    double lr = 0.05;
    double momentum = 0.9;
    std::uint64_t seed = 0;
    double test_fraction = 0.2;
    /// Which autocast policy lists to use: "cpu" (PyTorch's CPU lists) or "cuda" (the GPU's,
    /// emulated on the CPU).
    std::string policy = "cpu";
    amp::GradScalerOptions scaler;  ///< used in f16-scaler mode only
    std::string checkpoint_path;    ///< saved (atomically) after every epoch when not empty
    std::string resume_path;        ///< a checkpoint to continue from when not empty
    std::string data_file;          ///< the digits file; default data::data_path("digits.csv.gz")
};

struct EpochStats {
    std::int64_t epoch = 0;  ///< 1-based
    double train_loss = 0;   ///< mean over the epoch's batches (NaN once the model diverged)
    double test_loss = 0;
    double test_accuracy = 0;  ///< fraction in [0, 1]
    double scale = 1;          ///< the GradScaler's scale after the epoch (1 without a scaler)
    std::int64_t skipped_steps = 0;  ///< optimizer steps the scaler skipped in this epoch
    /// Fraction of parameter-gradient elements that were exactly zero, over the epoch's steps.
    double zero_grad_fraction = 0;
    /// On a fixed probe batch at the end of the epoch: of the gradient elements that are nonzero
    /// when computed in f32, the fraction that came out zero in this mode (underflow).
    double underflow_fraction = 0;
    double seconds = 0;  ///< wall time of the epoch's training steps
    /// The most memory the forward pass added, over the epoch's steps: activations saved for
    /// backward plus casts, read from tinyamp's allocator counters.
    std::int64_t peak_activation_bytes = 0;
};

struct TrainResult {
    std::vector<EpochStats> epochs;
    std::vector<amp::GradScaler::HistoryEntry> scale_history;  ///< empty without a scaler
    std::int64_t first_epoch = 1;  ///< > 1 when resumed from a checkpoint
};

/// Called after each epoch (for printing); `progress` is called after each step with
/// (step, steps per epoch, running mean loss).
struct TrainCallbacks {
    std::function<void(const EpochStats&)> on_epoch;
    std::function<void(std::int64_t epoch, std::int64_t step, std::int64_t steps, double loss)> on_step;
};

TrainResult run_training(const TrainConfig& config, const TrainCallbacks& callbacks = {});

/// The curves as CSV, one row per epoch: mode,model,epoch,train_loss,test_loss,test_accuracy,
/// scale,skipped_steps,zero_grad_fraction,underflow_fraction,seconds,peak_activation_bytes.
std::string csv_header();
std::string csv_rows(const TrainConfig& config, const TrainResult& result);

}  // namespace tinyamp::train
