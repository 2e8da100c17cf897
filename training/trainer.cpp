#include "training/trainer.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <sstream>

#include "training/gradient_underflow.h"
#include "training/precision_region.h"

namespace tinyamp::train {
namespace {

// Everything one run holds: the model, its optimizer, the scaler (f16-scaler mode only) and the
// autocast settings of the mode.
struct Run {
    const TrainConfig& config;
    std::shared_ptr<nn::Sequential> model;
    std::unique_ptr<optim::SGD> optimizer;
    std::unique_ptr<amp::GradScaler> scaler;
    std::shared_ptr<const amp::PolicyTable> table;

    // This mode's region (training/precision_region.h), while `region` lives.
    using Region = PrecisionRegion;
    void enter_autocast(Region& region) const { enter_region(config.mode, table, region); }

    Tensor loss_of(const Tensor& features, const Tensor& labels, bool use_autocast) const
    {
        Region region;
        if (use_autocast) enter_autocast(region);
        return cross_entropy((*model)(shape_input(config.model, features)), labels);
    }
};

// Exactly-zero elements among the parameters' gradients (-0 counts, NaN does not): (zeros, total).
std::pair<std::int64_t, std::int64_t> count_zero_grads(const std::vector<Tensor>& params)
{
    std::int64_t zeros = 0, total = 0;
    for (const Tensor& p : params) {
        if (!p.grad().defined()) continue;
        zeros += p.grad().numel() - std::int64_t(count_nonzero(p.grad()).item());
        total += p.grad().numel();
    }
    return {zeros, total};
}

// Of the gradient elements that are nonzero in f32, the fraction that are zero in this mode, on
// one fixed batch and the current weights. The scaler's scale is applied as in training.
double underflow_fraction(Run& run, const data::Batch& probe)
{
    const auto loss_of = [&](bool in_mode) { return run.loss_of(probe.features, probe.labels, in_mode); };
    return lost_gradient_shares(*run.model, loss_of, run.scaler ? run.scaler->get_scale() : 1.0, 1, [](const std::string&) { return 0; })
        .front();
}

// Test loss and accuracy on the whole test set, in eval mode and this mode's autocast.
std::pair<double, double> evaluate(Run& run, const data::Dataset& test)
{
    NoGradGuard no_grad;
    run.model->eval();
    Run::Region region;
    run.enter_autocast(region);
    const Tensor logits = (*run.model)(shape_input(run.config.model, test.features));
    const double loss = cross_entropy(logits, test.labels).item();
    const double correct = sum(eq(argmax(logits, 1), test.labels), f64).item();
    run.model->train();
    return {loss, correct / double(test.size())};
}

// The model (its weights drawn from config.seed), its SGD and, in f16-scaler mode, the GradScaler.
Run start_run(const TrainConfig& config)
{
    manual_seed(config.seed);
    Run run{config, make_model(config.model), nullptr, nullptr,
            std::make_shared<const amp::PolicyTable>(config.policy == "cpu" ? amp::PolicyTable::cpu() : amp::PolicyTable::cuda())};
    run.optimizer = std::make_unique<optim::SGD>(run.model->parameters(), optim::SGDOptions{.lr = config.lr, .momentum = config.momentum});
    if (config.mode == Mode::f16_scaler) run.scaler = std::make_unique<amp::GradScaler>("cpu", config.scaler);
    return run;
}

// --resume: loads the checkpoint, then replays the shuffles of its finished epochs, so that the
// batches continue as if never stopped. The first epoch left to run.
std::int64_t resume(Run& run, data::DataLoader& loader)
{
    io::TrainingState state{.model = run.model.get(), .optimizer = run.optimizer.get(), .scaler = run.scaler.get()};
    io::load_checkpoint(run.config.resume_path, state);
    for (std::int64_t e = 0; e < state.epoch; ++e) loader.begin();
    return state.epoch + 1;
}

// One step on `batch` (through the scaler in f16-scaler mode): its loss. Adds its gradients'
// zeros and count to `zero_grads`, and its skip and peak activation memory to `stats`.
double train_step(Run& run, const data::Batch& batch, EpochStats& stats, std::pair<std::int64_t, std::int64_t>& zero_grads)
{
    run.optimizer->zero_grad();
    const std::int64_t live_before = memory_stats().total.live_bytes;
    reset_peak_memory_stats();
    const Tensor loss = run.loss_of(batch.features, batch.labels, true);
    stats.peak_activation_bytes = std::max(stats.peak_activation_bytes, memory_stats().total.peak_bytes - live_before);
    if (run.scaler) run.scaler->scale(loss).backward();
    else loss.backward();
    const auto [zeros, total] = count_zero_grads(run.model->parameters());
    zero_grads.first += zeros;
    zero_grads.second += total;
    if (run.scaler) {
        if (!run.scaler->step(*run.optimizer)) ++stats.skipped_steps;
        run.scaler->update();
    } else {
        run.optimizer->step();
    }
    return loss.item();
}

// One pass over the training set: the epoch's time, mean training loss, skipped steps, zero
// gradients and peak activation memory (the test-set figures are the caller's).
EpochStats train_epoch(Run& run, data::DataLoader& loader, std::int64_t epoch, const TrainCallbacks& callbacks)
{
    EpochStats stats;
    stats.epoch = epoch;
    double loss_total = 0;
    std::int64_t steps = 0;
    std::pair<std::int64_t, std::int64_t> zero_grads{0, 0};
    const auto start = std::chrono::steady_clock::now();
    for (const data::Batch& batch : loader) {
        loss_total += train_step(run, batch, stats, zero_grads);
        ++steps;
        if (callbacks.on_step) callbacks.on_step(epoch, steps, loader.size(), loss_total / double(steps));
    }
    stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    stats.train_loss = loss_total / double(std::max<std::int64_t>(steps, 1));
    const auto [zeros, grads] = zero_grads;
    stats.zero_grad_fraction = grads == 0 ? 0.0 : double(zeros) / double(grads);
    return stats;
}

}  // namespace

TrainResult run_training(const TrainConfig& config, const TrainCallbacks& callbacks)
{
    TINYAMP_CHECK(config.epochs >= 0 && config.batch_size > 0, value, "tinyamp-train: epochs must be >= 0 and batch size > 0");
    TINYAMP_CHECK(config.policy == "cpu" || config.policy == "cuda", value, "unknown policy '", config.policy,
                  "': choose cpu (PyTorch's CPU autocast lists) or cuda (the GPU's lists, emulated on the CPU)");
    data::Dataset digits = data::load_digits(config.data_file.empty() ? data::data_path("digits.csv.gz") : config.data_file);
    digits.features = div(digits.features, 16.0);  // pixels 0..16 -> 0..1
    const auto [train_set, test_set] = data::train_test_split(digits, config.test_fraction, config.seed);
    Run run = start_run(config);
    data::DataLoader loader(train_set, config.batch_size, /*shuffle=*/true, /*drop_last=*/false, config.seed);
    const data::Batch probe = data::DataLoader(train_set, 256, false).batch(0);

    TrainResult result;
    if (!config.resume_path.empty()) result.first_epoch = resume(run, loader);
    for (std::int64_t epoch = result.first_epoch; epoch <= config.epochs; ++epoch) {
        EpochStats stats = train_epoch(run, loader, epoch, callbacks);
        stats.underflow_fraction = underflow_fraction(run, probe);
        std::tie(stats.test_loss, stats.test_accuracy) = evaluate(run, test_set);
        stats.scale = run.scaler ? run.scaler->get_scale() : 1.0;
        if (!config.checkpoint_path.empty())
            io::save_checkpoint(config.checkpoint_path,
                                {.model = run.model.get(), .optimizer = run.optimizer.get(), .scaler = run.scaler.get(), .epoch = epoch});
        result.epochs.push_back(stats);
        if (callbacks.on_epoch) callbacks.on_epoch(stats);
    }
    if (run.scaler) result.scale_history = run.scaler->history();
    return result;
}

std::string csv_header()
{
    return "mode,model,epoch,train_loss,test_loss,test_accuracy,scale,skipped_steps,zero_grad_fraction,underflow_fraction,seconds,"
           "peak_activation_bytes\n";
}

std::string csv_rows(const TrainConfig& config, const TrainResult& result)
{
    std::ostringstream out;
    out.precision(std::numeric_limits<double>::max_digits10);
    for (const EpochStats& e : result.epochs)
        out << mode_name(config.mode) << ',' << model_name(config.model) << ',' << e.epoch << ',' << e.train_loss << ',' << e.test_loss << ','
            << e.test_accuracy << ',' << e.scale << ',' << e.skipped_steps << ',' << e.zero_grad_fraction << ',' << e.underflow_fraction
            << ',' << e.seconds << ',' << e.peak_activation_bytes << '\n';
    return out.str();
}

}  // namespace tinyamp::train
