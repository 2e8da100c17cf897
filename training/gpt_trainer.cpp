#include "training/gpt_trainer.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <numbers>
#include <sstream>
#include <utility>

#include "training/gradient_underflow.h"
#include "training/precision_region.h"

namespace tinyamp::train {
namespace {

using Clock = std::chrono::steady_clock;

// nanoGPT's get_lr as the factor of a LambdaLR (iteration it = 0, 1, ...): linear warmup to lr
// over warmup_steps, then a cosine decay to min_lr at the last step.
double lr_factor(const GptTrainConfig& c, std::int64_t it)
{
    if (it < c.warmup_steps) return double(it + 1) / double(c.warmup_steps + 1);
    const double min_ratio = c.lr > 0 ? c.min_lr / c.lr : 0.0;
    const double decay = double(it - c.warmup_steps) / double(std::max<std::int64_t>(c.steps - 1 - c.warmup_steps, 1));
    return min_ratio + 0.5 * (1 + std::cos(std::numbers::pi * std::min(decay, 1.0))) * (1 - min_ratio);
}

// Everything one run holds.
struct GptRun {
    const GptTrainConfig& config;
    std::shared_ptr<Gpt> model;
    std::unique_ptr<optim::AdamW> optimizer;
    std::unique_ptr<amp::GradScaler> scaler;
    std::shared_ptr<const amp::PolicyTable> table;

    // The mean cross-entropy of the next character, in the mode's region when use_region.
    Tensor loss_of(const Tensor& x, const Tensor& y, bool use_region, GptProbe* probe = nullptr) const
    {
        PrecisionRegion region;
        if (use_region) enter_region(config.mode, table, region);
        const Tensor logits = model->forward_probed(x, probe);
        return cross_entropy(logits.reshape({-1, logits.size(2)}), y.reshape({-1}));
    }
};

// Which group a parameter belongs to for the per-block statistics: block i for "h.i.*", the last
// group (n_layer) for the embeddings, the final LayerNorm and the head.
std::size_t block_of(const std::string& name, std::size_t n_layer)
{
    if (name.rfind("h.", 0) != 0) return n_layer;
    return std::size_t(std::stoll(name.substr(2, name.find('.', 2) - 2)));
}

// Per block (and last: the rest), of the gradient elements nonzero in f32, the share that is zero
// in this mode.
std::vector<double> grad_underflow(GptRun& run, const Tensor& x, const Tensor& y)
{
    const std::size_t n_layer = std::size_t(run.config.model.n_layer);
    return lost_gradient_shares(*run.model, [&](bool in_mode) { return run.loss_of(x, y, in_mode); },
                                run.scaler ? run.scaler->get_scale() : 1.0, n_layer + 1,
                                [n_layer](const std::string& name) { return block_of(name, n_layer); });
}

// The mean loss over fixed batches, in the mode's region, without autograd.
double mean_loss(GptRun& run, const std::vector<std::pair<Tensor, Tensor>>& batches)
{
    NoGradGuard no_grad;
    double total = 0;
    for (const auto& [x, y] : batches) total += run.loss_of(x, y, true).item();
    return total / double(batches.size());
}

// Characters drawn one at a time from the model's softmax (in f32 mode-independent sampling).
std::string generate(GptRun& run, const data::CharTokenizer& tokenizer, std::int64_t count, Generator& generator)
{
    NoGradGuard no_grad;
    std::vector<double> context = tokenizer.encode("\n").to_vector();
    std::string text;
    for (std::int64_t i = 0; i < count; ++i) {
        const std::int64_t t = std::min<std::int64_t>(std::int64_t(context.size()), run.config.model.block_size);
        const Tensor idx = tensor(std::vector<double>(context.end() - t, context.end()), {1, t}, DType::i64);
        Tensor logits;
        {
            PrecisionRegion region;
            enter_region(run.config.mode, run.table, region);
            logits = run.model->forward(idx);
        }
        const std::vector<double> p = softmax(logits.select(1, t - 1).select(0, 0).to(f64), 0).to_vector();
        double u = generator.uniform(), acc = 0;
        std::int64_t next = std::int64_t(p.size()) - 1;
        for (std::size_t k = 0; k < p.size(); ++k)
            if ((acc += p[k]) > u) {
                next = std::int64_t(k);
                break;
            }
        context.push_back(double(next));
        text += tokenizer.vocabulary()[std::size_t(next)];
    }
    return text;
}

void check_config(const GptTrainConfig& config)
{
    TINYAMP_CHECK(config.steps >= 0 && config.batch_size > 0 && config.eval_interval > 0 && config.eval_batches > 0, value,
                  "tinyamp-train --model gpt: steps must be >= 0, and batch size, eval interval and eval batches > 0");
    TINYAMP_CHECK(config.policy == "cpu" || config.policy == "cuda", value, "unknown policy '", config.policy,
                  "': choose cpu (PyTorch's CPU autocast lists) or cuda (the GPU's lists, emulated on the CPU)");
    TINYAMP_CHECK(config.lr >= 0 && config.min_lr >= 0 && config.min_lr <= config.lr, value,
                  "tinyamp-train --model gpt: the learning rates must satisfy 0 <= min_lr <= lr, got lr ", config.lr, " and min_lr ", config.min_lr);
}

data::TextDataset load_text(const GptTrainConfig& config)
{
    return data::load_text_dataset(config.data_file.empty() ? data::data_path("kjv_1mb.txt.gz") : config.data_file);
}

// The model (its weights drawn from config.seed), its AdamW and, in f16-scaler mode, the GradScaler.
GptRun start_run(const GptTrainConfig& config, std::int64_t vocab_size)
{
    GptRun run{config, nullptr, nullptr, nullptr,
               std::make_shared<const amp::PolicyTable>(config.policy == "cpu" ? amp::PolicyTable::cpu() : amp::PolicyTable::cuda())};
    GptConfig model_config = config.model;
    model_config.vocab_size = vocab_size;
    manual_seed(config.seed);
    run.model = std::make_shared<Gpt>(model_config);
    run.optimizer = std::make_unique<optim::AdamW>(
        run.model->parameters(), optim::AdamWOptions{.lr = config.lr, .beta2 = config.beta2, .weight_decay = config.weight_decay});
    if (config.mode == Mode::f16_scaler) run.scaler = std::make_unique<amp::GradScaler>("cpu", config.scaler);
    return run;
}

// The evaluation batches, fixed up front: the same for every evaluation and every mode, so the
// curves compare like with like.
struct EvalBatches {
    std::vector<std::pair<Tensor, Tensor>> train, val;
};

EvalBatches eval_batches(const data::TextDataset& text, const GptTrainConfig& config, Generator& generator)
{
    EvalBatches batches;
    for (std::int64_t i = 0; i < config.eval_batches; ++i) {
        batches.train.push_back(data::sample_batch(text.train, config.batch_size, config.model.block_size, generator));
        batches.val.push_back(data::sample_batch(text.val, config.batch_size, config.model.block_size, generator));
    }
    return batches;
}

// --resume: loads the checkpoint, then draws the training batches of its finished steps again,
// so that the next ones are those the run would have had. The first step left to run.
std::int64_t resume(GptRun& run, optim::LambdaLR& schedule, const data::TextDataset& text, Generator& batches)
{
    const GptTrainConfig& config = run.config;
    io::TrainingState state{.model = run.model.get(), .optimizer = run.optimizer.get(), .scaler = run.scaler.get(), .scheduler = &schedule};
    io::load_checkpoint(config.resume_path, state);
    TINYAMP_CHECK(state.step <= config.steps, value, "checkpoint '", config.resume_path, "' is at step ", state.step,
                  ", beyond --steps ", config.steps, "; give --steps ", state.step, " or more to continue it");
    for (std::int64_t s = 1; s < state.step + 1; ++s) (void)data::sample_batch(text.train, config.batch_size, config.model.block_size, batches);
    return state.step + 1;
}

// The mean losses on the evaluation batches, the per-block ranges of the first validation batch
// and the gradients this mode loses on it.
GptEval evaluate(GptRun& run, const EvalBatches& batches, std::int64_t step)
{
    GptEval e;
    e.step = step;
    e.train_loss = mean_loss(run, batches.train);
    e.val_loss = mean_loss(run, batches.val);
    const auto& [x, y] = batches.val[0];
    {
        NoGradGuard no_grad;
        GptProbe probe;
        run.loss_of(x, y, true, &probe);
        e.blocks = probe.blocks;
    }
    e.grad_underflow = grad_underflow(run, x, y);
    return e;
}

// One optimizer step on the next training batch: the loss in the mode's region, backward (through
// the scaler in f16-scaler mode), the gradients clipped, the step and the schedule's.
GptStep train_step(GptRun& run, const std::vector<Tensor>& params, optim::LambdaLR& schedule, const data::TextDataset& text,
                   Generator& batches, std::int64_t step)
{
    const GptTrainConfig& config = run.config;
    const auto start = Clock::now();
    GptStep s;
    s.step = step;
    s.lr = schedule.get_last_lr().front();
    s.scale = run.scaler ? run.scaler->get_scale() : 1.0;

    const auto [x, y] = data::sample_batch(text.train, config.batch_size, config.model.block_size, batches);
    run.optimizer->zero_grad();
    const std::int64_t live_before = memory_stats().total.live_bytes;
    reset_peak_memory_stats();
    const Tensor loss = run.loss_of(x, y, true);
    s.peak_activation_bytes = memory_stats().total.peak_bytes - live_before;
    const double max_norm = config.grad_clip > 0 ? config.grad_clip : std::numeric_limits<double>::infinity();
    if (run.scaler) {
        run.scaler->scale(loss).backward();
        run.scaler->unscale_(*run.optimizer);
        s.grad_norm = optim::clip_grad_norm_(params, max_norm);
        s.skipped = !run.scaler->step(*run.optimizer);
        run.scaler->update();
    } else {
        loss.backward();
        s.grad_norm = optim::clip_grad_norm_(params, max_norm);
        run.optimizer->step();
    }
    schedule.step();
    s.loss = loss.item();
    s.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return s;
}

}  // namespace

GptResult run_gpt_training(const GptTrainConfig& config, const GptCallbacks& callbacks)
{
    check_config(config);
    const data::TextDataset text = load_text(config);
    GptRun run = start_run(config, text.tokenizer.vocab_size());
    optim::LambdaLR schedule(*run.optimizer, [&config](std::int64_t it) { return lr_factor(config, it); });
    // Training batches from one generator, evaluation batches from another, samples from a third.
    Generator batches(config.seed), eval_generator(config.seed + 1), sampler(config.seed + 2);
    const EvalBatches evaluation = eval_batches(text, config, eval_generator);

    GptResult result;
    if (!config.resume_path.empty()) result.first_step = resume(run, schedule, text, batches);
    result.parameters = run.model->num_parameters();
    result.vocab_size = text.tokenizer.vocab_size();
    const auto evaluate_and_save = [&](std::int64_t step) {
        result.evals.push_back(evaluate(run, evaluation, step));
        if (!config.checkpoint_path.empty())
            io::save_checkpoint(config.checkpoint_path, {.model = run.model.get(), .optimizer = run.optimizer.get(), .scaler = run.scaler.get(),
                                                         .scheduler = &schedule, .step = step});
        if (callbacks.on_eval) callbacks.on_eval(result.evals.back());
    };

    const std::vector<Tensor> params = run.model->parameters();
    for (std::int64_t step = result.first_step; step <= config.steps; ++step) {
        result.steps.push_back(train_step(run, params, schedule, text, batches, step));
        if (callbacks.on_step) callbacks.on_step(result.steps.back());
        if (step % config.eval_interval == 0 || step == config.steps) evaluate_and_save(step);
    }
    if (result.first_step > config.steps) evaluate_and_save(config.steps);  // nothing left to train: evaluate what there is
    if (config.sample_chars > 0) result.sample = generate(run, text.tokenizer, config.sample_chars, sampler);
    return result;
}

struct GptStepper::State {
    GptTrainConfig config;  // first: the run below keeps a reference to it
    data::TextDataset text;
    GptRun run;
    optim::LambdaLR schedule;
    Generator batches;
    std::vector<Tensor> params;
    std::int64_t next_step = 1;

    explicit State(GptTrainConfig c)
        : config((check_config(c), std::move(c))), text(load_text(config)), run(start_run(config, text.tokenizer.vocab_size())),
          schedule(*run.optimizer, [this](std::int64_t it) { return lr_factor(config, it); }), batches(config.seed),
          params(run.model->parameters())
    {
    }
};

GptStepper::GptStepper(GptTrainConfig config) : state_(std::make_unique<State>(std::move(config))) {}
GptStepper::~GptStepper() = default;

GptStep GptStepper::step()
{
    State& s = *state_;
    return train_step(s.run, s.params, s.schedule, s.text, s.batches, s.next_step++);
}

std::int64_t GptStepper::parameters() const { return state_->run.model->num_parameters(); }

namespace {

std::ostringstream csv_stream()
{
    std::ostringstream out;
    out.precision(std::numeric_limits<double>::max_digits10);
    return out;
}

std::string run_prefix(const GptTrainConfig& config)
{
    return std::string(mode_name(config.mode)) + ',' + (config.model.fused_attention ? "fused" : "composite") + ',';
}

}  // namespace

std::string gpt_steps_csv_header() { return "mode,attention,step,loss,lr,scale,skipped,grad_norm,seconds,peak_activation_bytes\n"; }

std::string gpt_steps_csv(const GptTrainConfig& config, const GptResult& result)
{
    std::ostringstream out = csv_stream();
    for (const GptStep& s : result.steps)
        out << run_prefix(config) << s.step << ',' << s.loss << ',' << s.lr << ',' << s.scale << ',' << int(s.skipped) << ',' << s.grad_norm
            << ',' << s.seconds << ',' << s.peak_activation_bytes << '\n';
    return out.str();
}

std::string gpt_evals_csv_header() { return "mode,attention,step,train_loss,val_loss\n"; }

std::string gpt_evals_csv(const GptTrainConfig& config, const GptResult& result)
{
    std::ostringstream out = csv_stream();
    for (const GptEval& e : result.evals) out << run_prefix(config) << e.step << ',' << e.train_loss << ',' << e.val_loss << '\n';
    return out.str();
}

std::string gpt_layers_csv_header()
{
    return "mode,attention,step,layer,quantity,max_abs,f16_overflow,f16_underflow,bf16_overflow,bf16_underflow,nonfinite,count\n";
}

std::string gpt_layers_csv(const GptTrainConfig& config, const GptResult& result)
{
    std::ostringstream out = csv_stream();
    const auto row = [&](const GptEval& e, std::size_t layer, const char* quantity, const RangeStats& r) {
        out << run_prefix(config) << e.step << ',' << layer << ',' << quantity << ',' << r.max_abs << ',' << r.f16_overflow << ','
            << r.f16_underflow << ',' << r.bf16_overflow << ',' << r.bf16_underflow << ',' << r.nonfinite << ',' << r.count << '\n';
    };
    for (const GptEval& e : result.evals) {
        for (std::size_t l = 0; l < e.blocks.size(); ++l) {
            row(e, l, "attention_logits", e.blocks[l].attention_logits);
            row(e, l, "activations", e.blocks[l].activations);
        }
        for (std::size_t l = 0; l < e.grad_underflow.size(); ++l)
            out << run_prefix(config) << e.step << ',' << l << ",grad_underflow," << e.grad_underflow[l] << ",,,,,,\n";
    }
    return out.str();
}

}  // namespace tinyamp::train
