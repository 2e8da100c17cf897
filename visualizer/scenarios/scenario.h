#pragma once
// Live scenarios for the visualizer: a small model trained on the digits, one step at a time,
// with every AMP knob a student can turn. Each step records the trace of its forward and
// backward pass (what the graph view shows) and adds a point to the loss and loss-scale curves.
#include <cstdint>
#include <string>
#include <vector>

#include <tinyamp/tinyamp.h>

namespace tinyamp::viz {

struct ScenarioOptions {
    /// "mlp", "cnn" (tools/train's models) or "deep": Linear(64, 32) ReLU, 14 x (Linear(32, 32) ReLU),
    /// Linear(32, 10), 16 Linear layers in all, whose bf16 step (micro_batches 1) is a graph of
    /// 198 nodes: 163 events (10 per hidden layer: 2 casts, linear, relu forward; linear, relu,
    /// 2 cast and 2 AccumulateGrad backward) and 35 tensors from outside (weights, biases, the
    /// batch, its labels, the backward seed).
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
    std::uint64_t seed = 0;
};

struct StepRecord {
    std::int64_t step = 0;  ///< 1-based
    double loss = 0;        ///< the step's mean loss (unscaled), NaN if it diverged
    double scale = 1;       ///< the GradScaler's scale after the step's update (1 without a scaler)
    bool skipped = false;   ///< the scaler skipped the optimizer step (an inf/NaN gradient)
};

class Scenario {
public:
    /// "mlp-bf16", "mlp-f16-scaler", "mlp-f16", "mlp-f32", "cnn-bf16", "deep-bf16", "mlp-fp8-delayed", "mlp-mxfp8".
    static std::vector<std::string> names();
    /// The options of a named scenario; Error(value) listing the names otherwise.
    static ScenarioOptions preset(const std::string& name);
    /// Throws Error(value) saying what is wrong with `options` and how to fix it (the GUI can
    /// check an edit before it resets). The constructor and reset() call it. Loads the digits
    /// (once per process) to check the batch size against the training set.
    static void validate(const ScenarioOptions& options);

    /// Loads the digits, builds the model (seeded) and runs one step, so trace() is never empty.
    explicit Scenario(ScenarioOptions options);
    // One scenario owns its model: a copy would share the model and optimizer with the original.
    Scenario(const Scenario&) = delete;
    Scenario& operator=(const Scenario&) = delete;
    Scenario(Scenario&&) = default;
    Scenario& operator=(Scenario&&) = default;
    /// Starts over with new options (a new model, empty curves, one step run).
    void reset(ScenarioOptions options);
    /// Runs `steps` more training steps; the trace is the last one's.
    void step(std::int64_t steps = 1);

    const ScenarioOptions& options() const { return options_; }
    const trace::Trace& trace() const { return trace_; }
    const std::vector<StepRecord>& history() const { return history_; }
    /// One line for the window title and logs, e.g.
    /// "mlp, autocast bf16 (cpu table), cast cache on, no GradScaler, step 3".
    std::string summary() const;

private:
    struct State;
    ScenarioOptions options_;
    trace::Trace trace_;
    std::vector<StepRecord> history_;
    std::shared_ptr<State> state_;  // the model, optimizer, scaler and data
};

}  // namespace tinyamp::viz
