#include "tinyamp/optim/lr_scheduler.h"

#include <cmath>
#include <numbers>
#include <utility>

#include "tinyamp/support/warning.h"

namespace tinyamp::optim {

LRScheduler::LRScheduler(Optimizer& optimizer, const char* name) : optimizer_(optimizer), name_(name)
{
    // PyTorch's initial_lr: the lr of each group when the scheduler is made.
    for (const ParamGroup& g : optimizer.param_groups()) base_lrs_.push_back(g.lr);
    last_lrs_ = base_lrs_;
}

void LRScheduler::move_to(std::int64_t epoch, const std::vector<double>& base_lrs)
{
    // PyTorch's _get_closed_form_lr: from the base each time, so no rounding builds up over steps.
    auto& groups = optimizer_.param_groups();
    TINYAMP_CHECK(groups.size() == base_lrs.size(), value, name_, ": the optimizer has ", groups.size(),
                  " parameter groups but the scheduler was made for ", base_lrs.size());
    std::vector<double> lrs;
    for (const double base : base_lrs) lrs.push_back(lr_at(base, epoch));
    for (std::size_t i = 0; i < groups.size(); ++i) groups[i].lr = lrs[i];
    last_epoch_ = epoch;
    base_lrs_ = base_lrs;
    last_lrs_ = std::move(lrs);
}

void LRScheduler::step()
{
    // PyTorch's check, at the first step only: the schedule was meant to follow optimizer steps.
    // Under AMP it also fires when a GradScaler skipped the first steps (inf/NaN gradients while
    // the scale was still too large); then it is harmless.
    if (calls_++ == 0 && optimizer_.step_calls() == 0)
        warn("Detected call of `lr_scheduler.step()` before `optimizer.step()`. Call optimizer.step() (or "
             "scaler.step(optimizer)) before scheduler.step(); otherwise the first value of the learning rate "
             "schedule is skipped. With a GradScaler this also happens when the first steps were skipped for "
             "inf/NaN gradients: compare scaler.get_scale() before and after scaler.update() to tell.");
    move_to(last_epoch_ + 1, base_lrs_);
}

void LRScheduler::check_state(std::int64_t last_epoch, const std::vector<double>& base_lrs) const
{
    TINYAMP_CHECK(base_lrs.size() == optimizer_.param_groups().size(), value, name_, " state has ", base_lrs.size(),
                  " base learning rates, but the optimizer has ", optimizer_.param_groups().size(), " parameter groups");
    TINYAMP_CHECK(last_epoch >= 0, value, name_, " state has last_epoch ", last_epoch, "; it must be >= 0");
    for (double lr : base_lrs)
        TINYAMP_CHECK(lr >= 0, value, name_, " state has a base learning rate of ", lr, "; it must be >= 0");
}

StepLR::StepLR(Optimizer& optimizer, std::int64_t step_size, double gamma)
    : LRSchedulerWithState(optimizer, "StepLR", {.step_size = step_size, .gamma = gamma})
{
    TINYAMP_CHECK(step_size > 0, value, "StepLR: step_size must be a positive number of epochs, got ", step_size);
    TINYAMP_CHECK(gamma > 0, value, "StepLR: gamma must be > 0 (it multiplies the learning rate), got ", gamma);
    initial_step();
}

double StepLR::lr_at(double base_lr, std::int64_t epoch) const
{
    return base_lr * std::pow(settings().gamma, double(epoch / settings().step_size));
}

void StepLR::check_settings(const StepLRState& state) const
{
    TINYAMP_CHECK(state.step_size > 0 && state.gamma > 0, value, "StepLR state needs step_size > 0 and gamma > 0, has step_size ",
                  state.step_size, " and gamma ", state.gamma);
}

CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, std::int64_t T_max, double eta_min)
    : LRSchedulerWithState(optimizer, "CosineAnnealingLR", {.T_max = T_max, .eta_min = eta_min})
{
    TINYAMP_CHECK(T_max > 0, value, "CosineAnnealingLR: T_max must be a positive number of steps, got ", T_max);
    TINYAMP_CHECK(std::isfinite(eta_min) && eta_min >= 0, value, "CosineAnnealingLR: eta_min must be a finite lr >= 0, got ", eta_min);
    initial_step();
}

double CosineAnnealingLR::lr_at(double base_lr, std::int64_t epoch) const
{
    const double eta_min = settings().eta_min;
    return eta_min + (base_lr - eta_min) * (1.0 + std::cos(std::numbers::pi * double(epoch) / double(settings().T_max))) / 2.0;
}

void CosineAnnealingLR::check_settings(const CosineAnnealingLRState& state) const
{
    TINYAMP_CHECK(state.T_max > 0 && std::isfinite(state.eta_min) && state.eta_min >= 0, value,
                  "CosineAnnealingLR state needs T_max > 0 and a finite eta_min >= 0, has T_max ", state.T_max, " and eta_min ",
                  state.eta_min);
}

LambdaLR::LambdaLR(Optimizer& optimizer, std::function<double(std::int64_t)> lr_lambda)
    : LRSchedulerWithState(optimizer, "LambdaLR", {}), lr_lambda_(std::move(lr_lambda))
{
    TINYAMP_CHECK(lr_lambda_ != nullptr, value, "LambdaLR: lr_lambda is empty; pass a function of the step number that "
                                                "returns the factor of the base lr");
    initial_step();
}

double LambdaLR::lr_at(double base_lr, std::int64_t epoch) const
{
    const double factor = lr_lambda_(epoch);
    TINYAMP_CHECK(std::isfinite(factor) && factor >= 0, value, "LambdaLR: lr_lambda(", epoch, ") returned ", factor,
                  "; the factor of the base lr must be finite and >= 0");
    return base_lr * factor;
}

}  // namespace tinyamp::optim
