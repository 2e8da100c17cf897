#include "visualizer/scenarios/scenario.h"

#include <cmath>
#include <optional>
#include <utility>

#include "training/gpt_model.h"
#include "training/models.h"
#include "training/trainer.h"

namespace tinyamp::viz {

namespace {

constexpr double kMomentum = 0.9;      // as tinyamp-train
constexpr int kDeepHiddenLayers = 14;  // Linear(32, 32) ReLU pairs; scenario.h says what this gives
// The GPT: as small as still shows a transformer block whole. Two heads show the split into
// heads; a width of 16 keeps every tensor's shape short enough for a node's label.
constexpr std::int64_t kGptLayers = 1, kGptHeads = 2, kGptWidth = 16;
// The longest context accepted: the graph is the same for any, only the shapes and the time grow.
constexpr std::int64_t kGptMaxContext = 64;

// The digits, pixels scaled to 0..1 as tinyamp-train does, loaded once per process.
const data::Dataset& digits()
{
    static const data::Dataset all = [] {
        data::Dataset d = data::load_digits(data::data_path("digits.csv.gz"));
        d.features = div(d.features, 16.0);
        return d;
    }();
    return all;
}

// The King James text as tinyamp-train --model gpt reads it (first 90 % of its tokens to train),
// loaded once per process.
const data::TextDataset& kjv()
{
    static const data::TextDataset text = data::load_text_dataset(data::data_path("kjv_1mb.txt.gz"));
    return text;
}

// A recorded scenario's trace, as its program wrote it into data/.
trace::Trace recorded_trace(const std::string& file) { return trace::Trace::from_json(io::read_file(data::data_path(file))); }

// tinyamp-train's training split for this seed (its test fraction; the test part is not used).
data::Dataset training_set(std::uint64_t seed) { return data::train_test_split(digits(), train::TrainConfig{}.test_fraction, seed).first; }

// A narrow, deep MLP: a graph big enough to need the visualizer's zoom and pan.
std::shared_ptr<nn::Sequential> make_deep_model()
{
    auto model = std::make_shared<nn::Sequential>();
    model->emplace_back<nn::Linear>(64, 32);
    model->emplace_back<nn::ReLU>();
    for (int i = 0; i < kDeepHiddenLayers; ++i) {
        model->emplace_back<nn::Linear>(32, 32);
        model->emplace_back<nn::ReLU>();
    }
    model->emplace_back<nn::Linear>(32, 10);
    return model;
}

// The recipe a scenario's fp8 option names ("" has none: validate() refuses it here).
amp::ScalingRecipe fp8_recipe(const std::string& name)
{
    if (name == "current") return amp::Float8CurrentScaling{};
    if (name == "delayed") return amp::DelayedScaling{.amax_history_len = 16};  // as tinyamp-train's fp8-delayed
    if (name == "mxfp8") return amp::MXBlockScaling::mxfp8();
    TINYAMP_FAIL(value, "unknown fp8 recipe '", name, "': choose current, delayed or mxfp8 (or none)");
}

// The GPT of model "gpt", with its attention fused or composite; seeded by the caller.
std::shared_ptr<train::Gpt> make_gpt(const ScenarioOptions& options)
{
    return std::make_shared<train::Gpt>(train::GptConfig{.vocab_size = kjv().tokenizer.vocab_size(),
                                                         .block_size = options.context,
                                                         .n_layer = kGptLayers,
                                                         .n_head = kGptHeads,
                                                         .n_embd = kGptWidth,
                                                         .qkv_init_std = options.qkv_init_std,
                                                         .fused_attention = options.fused_attention});
}

// The slices of a batch that a step's forward passes take, laid out as the model wants them
// (the GPT's targets flattened to [B*T], as its logits are for cross_entropy).
std::vector<data::Batch> micro_batches(const data::Batch& batch, std::int64_t m, std::optional<train::ModelKind> input_kind)
{
    const std::int64_t n = batch.labels.size(0);
    std::vector<data::Batch> out;
    for (std::int64_t i = 0; i < m; ++i) {
        const std::int64_t start = i * n / m, length = (i + 1) * n / m - start;
        const Tensor features = batch.features.narrow(0, start, length), labels = batch.labels.narrow(0, start, length);
        if (input_kind)
            out.push_back({train::shape_input(*input_kind, features), labels});
        else
            out.push_back({features, labels.reshape({-1})});
    }
    return out;
}

}  // namespace

// Gpt::forward_probed without a probe, but through each block's operator() (scenario.h says why).
Tensor gpt_scenario_logits(train::Gpt& gpt, const Tensor& idx)
{
    const Tensor tok_emb = (*gpt.wte)(idx);  // named: the same order on every compiler (GptModel::forward)
    const Tensor pos_emb = (*gpt.wpe)(arange(idx.size(1)));
    Tensor x = add(tok_emb, pos_emb);
    for (const std::shared_ptr<train::GptBlock>& block : gpt.blocks) x = (*block)(x);
    return (*gpt.lm_head)((*gpt.ln_f)(x));
}

namespace {

// The loss of one forward pass: the digits' logits [N, 10], or the GPT's [B, T, vocab] read as
// B*T predictions of the next character.
Tensor forward_loss(nn::Module& model, const data::Batch& batch)
{
    if (auto* gpt = dynamic_cast<train::Gpt*>(&model)) {
        const Tensor logits = gpt_scenario_logits(*gpt, batch.features);
        return cross_entropy(logits.reshape({-1, logits.size(2)}), batch.labels);
    }
    return cross_entropy(model(batch.features), batch.labels);
}

}  // namespace

// What a scenario trains with. Built whole before a Scenario takes it (reset's strong guarantee).
struct Scenario::State {
    // How shape_input lays out the digits ("deep" takes them flat, as mlp); none for the GPT.
    std::optional<train::ModelKind> input_kind;
    std::shared_ptr<nn::Module> model;
    std::unique_ptr<optim::SGD> optimizer;
    std::unique_ptr<amp::GradScaler> scaler;  // null without a scaler
    std::shared_ptr<const amp::PolicyTable> table;
    // The digits: a seeded shuffled loader; the GPT: windows drawn from the text (sample_batch).
    std::optional<data::DataLoader> loader;
    std::int64_t next_batch = 0;  // in the loader's current epoch; == loader->size() starts the next epoch
    Generator windows;

    explicit State(const ScenarioOptions& options);
    StepRecord step(const ScenarioOptions& options, std::int64_t step_number, trace::Trace& trace);
    data::Batch next(const ScenarioOptions& options);
};

Scenario::State::State(const ScenarioOptions& options) : table(std::make_shared<const amp::PolicyTable>(options.table)), windows(options.seed)
{
    if (options.model != "gpt") {
        input_kind = options.model == "cnn" ? train::ModelKind::cnn : train::ModelKind::mlp;
        // drop_last: every batch has batch_size samples (validate checked there is one), so each
        // micro-batch gets at least one.
        loader.emplace(training_set(options.seed), options.batch_size, /*shuffle=*/true, /*drop_last=*/true, options.seed);
        next_batch = loader->size();
    }
    manual_seed(options.seed);  // the model's weights come from the default generator
    if (options.model == "gpt")
        model = make_gpt(options);
    else if (options.model == "deep")
        model = make_deep_model();
    else
        model = train::make_model(*input_kind);
    optimizer = std::make_unique<optim::SGD>(model->parameters(), optim::SGDOptions{.lr = options.lr, .momentum = kMomentum});
    if (options.scaler) scaler = std::make_unique<amp::GradScaler>("cpu", options.scaler_options);
}

// The next batch: the loader's, or batch_size windows of the text and the characters after them.
data::Batch Scenario::State::next(const ScenarioOptions& options)
{
    if (!loader) {
        auto [x, y] = data::sample_batch(kjv().train, options.batch_size, options.context, windows);
        return {x, y};
    }
    if (next_batch == loader->size()) {
        loader->begin();  // the next epoch, in the next seeded shuffled order
        next_batch = 0;
    }
    return loader->batch(next_batch++);
}

// One training step; `trace` receives its forward pass (the whole autocast region), scale() and
// backward(). The optimizer's update is left out: its many small ops would flood the graph.
StepRecord Scenario::State::step(const ScenarioOptions& options, std::int64_t step_number, trace::Trace& trace)
{
    // Sliced before recording, so the graph starts at the inputs.
    const std::vector<data::Batch> micro = micro_batches(next(options), options.micro_batches, input_kind);

    optimizer->zero_grad();
    Tensor loss;
    {
        trace::TraceRecorder recorder(trace);
        {
            // One region for all micro-batches: the cast cache lives until its outermost exit, so
            // the weights cast by the first forward pass are hits for the next ones.
            amp::autocast region("cpu", {.dtype = options.dtype,
                                         .enabled = options.autocast,
                                         .cache_enabled = options.cache_enabled,
                                         .table = table});
            // Inside it, the FP8 region: its Linear layers run fp8_linear, the rest as autocast says.
            std::optional<amp::fp8_autocast> fp8;
            if (!options.fp8.empty()) fp8.emplace(true, fp8_recipe(options.fp8));
            for (const data::Batch& mb : micro) {
                Tensor part = forward_loss(*model, mb);
                if (micro.size() > 1) part = div(part, double(micro.size()));  // gradient accumulation's 1/m
                loss = loss.defined() ? add(loss, part) : part;
            }
        }
        // Outside the region, as in PyTorch: backward runs in the dtypes the forward pass chose.
        (scaler ? scaler->scale(loss) : loss).backward();
    }

    StepRecord record{.step = step_number, .loss = loss.item()};
    if (scaler) {
        record.skipped = !scaler->step(*optimizer);
        scaler->update();
        record.scale = scaler->get_scale();
    } else {
        optimizer->step();
    }
    return record;
}

void Scenario::validate(const ScenarioOptions& options)
{
    if (!options.recorded.empty()) {
        (void)recorded_trace(options.recorded);  // a missing or damaged file is an error here, naming the file
        return;
    }
    const bool gpt = options.model == "gpt";
    TINYAMP_CHECK(options.model == "mlp" || options.model == "cnn" || options.model == "deep" || gpt, value, "unknown model '",
                  options.model, "': choose mlp, cnn, deep or gpt");
    TINYAMP_CHECK(!options.autocast || options.dtype == f16 || options.dtype == bf16, value, "autocast dtype ", dtype_name(options.dtype),
                  " is not a lower precision: choose f16 or bf16, or turn autocast off for an f32 run");
    if (!options.fp8.empty()) (void)fp8_recipe(options.fp8);
    TINYAMP_CHECK(options.micro_batches >= 1, value, "micro_batches must be >= 1 (forward passes per step), got ", options.micro_batches);
    TINYAMP_CHECK(options.batch_size >= options.micro_batches, value, "batch_size ", options.batch_size, " is smaller than micro_batches ",
                  options.micro_batches, ": each micro-batch needs a sample; raise batch_size or lower micro_batches");
    TINYAMP_CHECK(options.lr > 0 && std::isfinite(options.lr), value, "lr must be a finite number > 0, got ", options.lr,
                  " (0.05 trains the digits models well, 0.1 the GPT)");
    if (gpt) {
        TINYAMP_CHECK(options.context >= 2 && options.context <= kGptMaxContext, value, "context ", options.context,
                      " is out of range: the GPT scenario takes 2 to ", kGptMaxContext, " characters per sequence");
        TINYAMP_CHECK(options.qkv_init_std >= 0 && std::isfinite(options.qkv_init_std), value, "qkv_init_std must be 0 (the model's ",
                      train::GptConfig{}.init_std, ") or a finite std > 0, got ", options.qkv_init_std);
        (void)kjv();  // a missing or damaged text file is an error here, before anything is built
        return;
    }
    const std::int64_t samples = training_set(options.seed).size();
    TINYAMP_CHECK(options.batch_size <= samples, value, "batch_size ", options.batch_size, " is larger than the training set (", samples,
                  " digits): choose at most ", samples);
}

Scenario::Scenario(ScenarioOptions options) { reset(std::move(options)); }

void Scenario::reset(ScenarioOptions options)
{
    // Build everything first; only then swap it in, with moves that cannot throw.
    if (!options.recorded.empty()) {  // nothing to train: the trace another program recorded
        trace::Trace trace = recorded_trace(options.recorded);
        options_ = std::move(options);
        trace_ = std::move(trace);
        history_.clear();
        state_.reset();
        return;
    }
    validate(options);
    auto state = std::make_shared<State>(options);
    trace::Trace trace;
    std::vector<StepRecord> history{state->step(options, 1, trace)};
    options_ = std::move(options);
    trace_ = std::move(trace);
    history_ = std::move(history);
    state_ = std::move(state);
}

void Scenario::step(std::int64_t steps)
{
    TINYAMP_CHECK(steps >= 0, value, "Scenario::step: steps must be >= 0, got ", steps);
    TINYAMP_CHECK(steps == 0 || options_.recorded.empty(), state, "this scenario shows a trace recorded elsewhere (", options_.recorded,
                  "): it has no model to train, so it takes no steps");
    for (std::int64_t i = 0; i < steps; ++i) {
        trace::Trace trace;
        history_.push_back(state_->step(options_, std::int64_t(history_.size()) + 1, trace));
        trace_ = std::move(trace);
    }
}

}  // namespace tinyamp::viz
