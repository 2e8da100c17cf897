#include "tinyamp/optim/lr_scheduler.h"

#include <cmath>

#include "tinyamp/core/warning.h"

namespace tinyamp::optim {

StepLR::StepLR(Optimizer& optimizer, std::int64_t step_size, double gamma) : optimizer_(optimizer), step_size_(step_size), gamma_(gamma)
{
    TINYAMP_CHECK(step_size > 0, value, "StepLR: step_size must be a positive number of epochs, got ", step_size);
    TINYAMP_CHECK(gamma > 0, value, "StepLR: gamma must be > 0 (it multiplies the learning rate), got ", gamma);
    // PyTorch's initial_lr: the lr of each group when the scheduler is made.
    for (const ParamGroup& g : optimizer.param_groups()) base_lrs_.push_back(g.lr);
    last_lrs_ = base_lrs_;
}

void StepLR::apply()
{
    // PyTorch's _get_closed_form_lr: from the base each time, so no rounding builds up over epochs.
    auto& groups = optimizer_.param_groups();
    TINYAMP_CHECK(groups.size() == base_lrs_.size(), value, "StepLR: the optimizer has ", groups.size(), " parameter groups but the ",
                  "scheduler was made for ", base_lrs_.size());
    for (std::size_t i = 0; i < groups.size(); ++i)
        groups[i].lr = base_lrs_[i] * std::pow(gamma_, double(last_epoch_ / step_size_));
    last_lrs_.clear();
    for (const ParamGroup& g : groups) last_lrs_.push_back(g.lr);
}

void StepLR::step()
{
    // PyTorch's check, at the first step only: the schedule was meant to follow optimizer steps.
    // Under AMP it also fires when a GradScaler skipped the first steps (inf/NaN gradients while
    // the scale was still too large); then it is harmless.
    if (calls_++ == 0 && optimizer_.step_calls() == 0)
        warn("Detected call of `lr_scheduler.step()` before `optimizer.step()`. Call optimizer.step() (or "
             "scaler.step(optimizer)) before scheduler.step(); otherwise the first value of the learning rate "
             "schedule is skipped. With a GradScaler this also happens when the first steps were skipped for "
             "inf/NaN gradients: compare scaler.get_scale() before and after scaler.update() to tell.");
    ++last_epoch_;
    apply();
}

void StepLR::load_state_dict(const StepLRState& state)
{
    TINYAMP_CHECK(state.base_lrs.size() == optimizer_.param_groups().size(), value, "StepLR state has ", state.base_lrs.size(),
                  " base learning rates, but the optimizer has ", optimizer_.param_groups().size(), " parameter groups");
    TINYAMP_CHECK(state.step_size > 0 && state.gamma > 0 && state.last_epoch >= 0, value,
                  "StepLR state needs step_size > 0, gamma > 0 and last_epoch >= 0");
    for (double lr : state.base_lrs) TINYAMP_CHECK(lr >= 0, value, "StepLR state has a base learning rate of ", lr, "; it must be >= 0");
    last_epoch_ = state.last_epoch;
    base_lrs_ = state.base_lrs;
    step_size_ = state.step_size;
    gamma_ = state.gamma;
    apply();
}

}  // namespace tinyamp::optim
