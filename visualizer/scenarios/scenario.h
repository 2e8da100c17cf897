#pragma once
// Live scenarios for the visualizer: a small model trained on the digits (or a one-block
// character GPT on the King James text), one step at a time, with every AMP knob a student can
// turn. Each step records the trace of its forward and backward pass (what the graph view
// shows) and adds a point to the loss and loss-scale curves. A recorded scenario (ddp-bf16)
// shows instead a trace another program wrote, for a run the visualizer cannot make itself.
#include <cstdint>
#include <string>
#include <vector>

#include <tinyamp/tinyamp.h>

namespace tinyamp::train {
class Gpt;  // training/gpt_model.h
}

namespace tinyamp::viz {

struct ScenarioOptions {
    /// "mlp", "cnn" (training/'s models) or "deep": Linear(64, 32) ReLU, 14 x (Linear(32, 32) ReLU),
    /// Linear(32, 10), 16 Linear layers in all, whose bf16 step (micro_batches 1) is a graph of
    /// 198 nodes: 163 events (10 per hidden layer: 2 casts, linear, relu forward; linear, relu,
    /// 2 cast and 2 AccumulateGrad backward) and 35 tensors from outside (weights, biases, the
    /// batch, its labels, the backward seed).
    /// "gpt": training/'s character GPT, one block (n_layer 1), 2 heads, width 16, trained on
    /// windows of `context` characters of the King James text: embeddings, LayerNorm, c_attn, the
    /// attention, c_proj, the GELU MLP and the residual adds, each op one node.
    std::string model = "mlp";
    bool autocast = true;
    DType dtype = DType::bf16;         ///< the autocast dtype: f16 or bf16
    /// The policy table in force; starts as a copy of a built-in one ("cpu" or "cuda", the GPU's
    /// lists emulated on CPU tensors) and the GUI edits it (moving an op to another policy).
    amp::PolicyTable table = amp::PolicyTable::cpu();
    bool cache_enabled = true;
    bool scaler = false;               ///< use a GradScaler (for f16)
    amp::GradScalerOptions scaler_options;
    double lr = 0.05;
    std::int64_t batch_size = 32;
    /// Forward passes per step inside one autocast region (gradient accumulation): from the
    /// second one on, the cast cache serves the weights' casts (cache hits), when it is enabled.
    std::int64_t micro_batches = 2;
    /// FP8 training: "" (off), or the recipe of an amp::fp8_autocast region around the forward
    /// passes, which runs every Linear layer through fp8_linear: "current" (per-tensor current
    /// scaling), "delayed" (per-tensor delayed scaling, amax history of 16 steps) or "mxfp8"
    /// (MX blocks of 32 with E8M0 scales). The inspector shows each fp8_linear's casts.
    std::string fp8;
    /// Model "gpt" only: the characters per sequence (the model's block_size), 2 to 64.
    std::int64_t context = 12;
    /// Model "gpt" only: true runs the attention as one scaled_dot_product_attention op (its
    /// logits and softmax in f32 inside); false as its composite reference, matmul, mul by
    /// 1/sqrt(head_dim), masked_fill, softmax and matmul as separate ops, each in the dtype
    /// autocast gives it (ops/attention.h).
    bool fused_attention = true;
    /// Model "gpt" only: the std of c_attn's initial weights (q, k and v), 0 for the model's 0.02.
    /// The attention logits grow with its square: about 24 pushes them past f16's 65504, where
    /// the composite attention's f16 logits overflow to inf (and its softmax makes NaN) while
    /// the fused op, whose logits stay in f32, does not (tinyamp-train's GPT study, the same knob).
    double qkv_init_std = 0;
    std::uint64_t seed = 0;
    /// A recorded scenario: the name of a trace JSON in tinyamp's data/ folder (data::data_path),
    /// shown as another program recorded it instead of a step trained here; every other option
    /// is then ignored, and the scenario takes no steps. "ddp_bf16_trace.json" (ddp-bf16): rank 0
    /// of a 2-rank DistributedDataParallel step whose gradients are all-reduced in bf16, written
    /// by tools/ddp_trace under mpirun (the visualizer is one process, without MPI). "" (the
    /// default): a live scenario.
    std::string recorded;
};

/// The logits of model "gpt": train::Gpt::forward(idx), but with each block called through
/// nn::Module's operator() (the model calls it directly), so a trace frames the block's ops as
/// module "0" (type Block), the prefix of its parameters' names. Same ops, same logits.
Tensor gpt_scenario_logits(train::Gpt& gpt, const Tensor& idx);

struct StepRecord {
    std::int64_t step = 0;  ///< 1-based
    double loss = 0;        ///< the step's mean loss (unscaled), NaN if it diverged
    double scale = 1;       ///< the GradScaler's scale after the step's update (1 without a scaler)
    bool skipped = false;   ///< the scaler skipped the optimizer step (an inf/NaN gradient)
};

/// Where a scenario opens: the place of its lesson, as tinyamp-viz's --position and --select
/// would give it (each of those, given, overrides its part). The first view keeps the node
/// selected in sight (camera.h's first_view_showing).
struct Opening {
    std::string position = "end";  ///< the timeline: "end", "start", "backward" or a number of events
    std::string select;            ///< the node inspected, as --select names it ("" for none: the timeline's)
};

class Scenario {
public:
    /// "mlp-bf16", "mlp-f16-scaler", "mlp-f16", "mlp-f32", "cnn-bf16", "deep-bf16", "mlp-fp8-delayed", "mlp-mxfp8",
    /// "gpt", "gpt-composite", "ddp-bf16" (recorded).
    static std::vector<std::string> names();
    /// The options of a named scenario; Error(value) listing the names otherwise.
    static ScenarioOptions preset(const std::string& name);
    /// Where the named scenario opens (its lesson's node); Error(value) listing the names for an
    /// unknown one.
    static Opening opening(const std::string& name);
    /// Throws Error(value) saying what is wrong with `options` and how to fix it (the GUI can
    /// check an edit before it resets). The constructor and reset() call it. Loads the digits
    /// (once per process) to check the batch size against the training set, or the GPT's text.
    static void validate(const ScenarioOptions& options);

    /// Loads the data, builds the model (seeded) and runs one step, so trace() is never empty; a
    /// recorded scenario loads its trace (Error(io) naming what is wrong with the file).
    explicit Scenario(ScenarioOptions options);
    // One scenario owns its model: a copy would share the model and optimizer with the original.
    Scenario(const Scenario&) = delete;
    Scenario& operator=(const Scenario&) = delete;
    Scenario(Scenario&&) = default;
    Scenario& operator=(Scenario&&) = default;
    /// Starts over with new options (a new model, empty curves, one step run).
    void reset(ScenarioOptions options);
    /// Runs `steps` more training steps; the trace is the last one's. Error(state) for a
    /// recorded scenario (any steps > 0), which has nothing to train.
    void step(std::int64_t steps = 1);

    const ScenarioOptions& options() const { return options_; }
    const trace::Trace& trace() const { return trace_; }
    const std::vector<StepRecord>& history() const { return history_; }  ///< empty for a recorded scenario
    /// One line for the window title and logs, e.g.
    /// "mlp, autocast bf16 (cpu table), cast cache on, no GradScaler, step 3"; for a recorded one
    /// "recorded: ddp_bf16_trace.json, rank 0 of 2, 3 collectives".
    std::string summary() const;

private:
    struct State;
    ScenarioOptions options_;
    trace::Trace trace_;
    std::vector<StepRecord> history_;
    std::shared_ptr<State> state_;  // the model, optimizer, scaler and data
};

}  // namespace tinyamp::viz
