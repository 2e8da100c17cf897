#pragma once
// tinyamp-train --model gpt: a character-level GPT on the King James text (data/), trained with
// AdamW, a linear warmup then a cosine decay of the learning rate, gradient clipping, and the
// precision mode's region (training/precision_region.h):
//
//     for each step:
//         x, y = sample_batch(train tokens)          // [B, T] i64, y = x shifted by one
//         { region of the mode;  loss = cross_entropy(model(x) as [B*T, vocab], y) }
//         scaler.scale(loss).backward();            // f16-scaler; loss.backward() otherwise
//         scaler.unscale_(optimizer);  clip_grad_norm_(params, 1.0);
//         scaler.step(optimizer);  scaler.update();
//
// Every eval_interval steps it measures the loss on fixed train and validation batches and, per
// block, the attention logits' and activations' ranges against f16 and bf16 (GptProbe), and the
// share of each block's gradient that this mode loses to underflow. docs/gpt_study.md reads them.
// With checkpoint_path it saves the run at each evaluation; resume_path continues such a run
// exactly where it stopped (the same weights, optimizer, scale, learning rate and batches).

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <tinyamp/tinyamp.h>

#include "training/gpt_model.h"
#include "training/modes.h"

namespace tinyamp::train {

/// The settings of one GPT run; the defaults are the study's (docs/gpt_study.md).
struct GptTrainConfig {
    Mode mode = Mode::f32;
    GptConfig model;                  ///< vocab_size is set from the text
    std::int64_t steps = 1500;        ///< optimizer steps (attempted: the scaler may skip some)
    std::int64_t batch_size = 16;     ///< sequences per step, each model.block_size tokens
    double lr = 1e-3;                 ///< the peak learning rate, reached after the warmup
    double min_lr = 1e-4;             ///< where the cosine decay ends
    std::int64_t warmup_steps = 100;  ///< linear warmup from lr / warmup_steps
    double weight_decay = 0.1;        ///< AdamW's decoupled decay, on 2-D weights only (as nanoGPT)
    double beta2 = 0.99;              ///< AdamW's beta2 (nanoGPT's choice for small models)
    double grad_clip = 1.0;           ///< max global gradient norm; 0 turns clipping off
    std::int64_t eval_interval = 100; ///< steps between two evaluations (and one after the last step)
    std::int64_t eval_batches = 4;    ///< fixed batches per split at each evaluation
    std::uint64_t seed = 0;           ///< the initial weights, the batches
    std::string policy = "cpu";       ///< autocast lists: "cpu" or "cuda" (emulated)
    amp::GradScalerOptions scaler;    ///< f16-scaler mode only
    std::string data_file;            ///< default: the project's data/ text
    std::int64_t sample_chars = 200;  ///< characters generated from the trained model at the end
    /// Saved (atomically) at every evaluation when not empty: the model, AdamW, the GradScaler,
    /// the learning-rate schedule and the step (io::save_checkpoint).
    std::string checkpoint_path;
    /// A checkpoint of this same run (model, mode) to continue from when not empty: the run goes on
    /// from the step after the saved one, with the same batches as if it had never stopped.
    std::string resume_path;
};

/// One optimizer step.
struct GptStep {
    std::int64_t step = 0;    ///< 1-based
    double loss = 0;          ///< this batch's loss (before scaling)
    double lr = 0;            ///< the learning rate used
    double scale = 1;         ///< the scaler's scale used for this step (1 without a scaler)
    bool skipped = false;     ///< the scaler found inf/NaN and skipped the update
    double grad_norm = 0;     ///< global gradient norm before clipping (unscaled)
    double seconds = 0;       ///< wall time of the step
    std::int64_t peak_activation_bytes = 0;  ///< memory the forward pass added
};

/// One evaluation.
struct GptEval {
    std::int64_t step = 0;
    double train_loss = 0;
    double val_loss = 0;
    std::vector<BlockStats> blocks;  ///< forward ranges on a validation batch, in this mode
    /// Per block (and last: embeddings + final LayerNorm + head), of the gradient elements that
    /// are nonzero in f32, the share that is zero in this mode (scaled as in training).
    std::vector<double> grad_underflow;
};

struct GptResult {
    std::int64_t first_step = 1;  ///< > 1 when resumed from a checkpoint
    std::vector<GptStep> steps;
    std::vector<GptEval> evals;
    std::int64_t parameters = 0;
    std::int64_t vocab_size = 0;
    std::string sample;  ///< text generated from "\n" by the trained model (seeded)
};

struct GptCallbacks {
    std::function<void(const GptStep&)> on_step;
    std::function<void(const GptEval&)> on_eval;
};

GptResult run_gpt_training(const GptTrainConfig& config, const GptCallbacks& callbacks = {});

/// run_gpt_training's steps, one at a time, for a caller that times them (tinyamp-bench's GPT
/// step): the same text, model, AdamW, scaler, schedule and training batches from config.seed,
/// so step k is run_gpt_training's step k; no evaluations, checkpoints or samples.
class GptStepper {
public:
    /// Loads the text and makes the model; the same checks as run_gpt_training.
    explicit GptStepper(GptTrainConfig config);
    ~GptStepper();
    GptStepper(const GptStepper&) = delete;
    GptStepper& operator=(const GptStepper&) = delete;

    /// Runs the next optimizer step (1, 2, ...; past config.steps the schedule stays at min_lr).
    GptStep step();
    /// The model's parameter count.
    std::int64_t parameters() const;

private:
    struct State;
    std::unique_ptr<State> state_;
};

/// The curves as CSV: one row per step (gpt_steps_csv), one per evaluation (gpt_evals_csv), and
/// one per evaluation, block and quantity (gpt_layers_csv).
std::string gpt_steps_csv_header();
std::string gpt_steps_csv(const GptTrainConfig& config, const GptResult& result);
std::string gpt_evals_csv_header();
std::string gpt_evals_csv(const GptTrainConfig& config, const GptResult& result);
std::string gpt_layers_csv_header();
std::string gpt_layers_csv(const GptTrainConfig& config, const GptResult& result);

}  // namespace tinyamp::train
