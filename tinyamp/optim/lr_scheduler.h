#pragma once
/// \file
/// Learning-rate schedules, as torch.optim.lr_scheduler: StepLR, CosineAnnealingLR and LambdaLR,
/// on one base, LRScheduler.
///
/// Call step() after the optimizer's step: once per epoch for an epoch schedule, once per
/// iteration for an iteration schedule (as GPT training does). Every scheduler sets each group's
/// lr from a closed form of (base lr, last_epoch), so no rounding builds up over the steps.
///
/// \code
/// optim::StepLR scheduler(optimizer, /*step_size=*/10, /*gamma=*/0.5);
/// for (epoch ...) { train(); scheduler.step(); }   // lr: 0.1 x10, 0.05 x10, 0.025 ...
/// \endcode
///
/// Linear warmup for W iterations, then cosine decay to min_lr at iteration D, then min_lr
/// (nanoGPT's get_lr), is a LambdaLR whose factor multiplies the optimizer's lr:
///
/// \code
/// const std::int64_t W = 100, D = 5000;
/// const double min_ratio = 0.1;  // min_lr / lr
/// optim::LambdaLR scheduler(optimizer, [=](std::int64_t it) {
///     if (it < W) return double(it + 1) / double(W + 1);  // warmup: lr/(W+1), 2 lr/(W+1), ...
///     if (it > D) return min_ratio;
///     const double decay = double(it - W) / double(D - W);  // 0 -> 1
///     return min_ratio + 0.5 * (1.0 + std::cos(std::numbers::pi * decay)) * (1.0 - min_ratio);
/// });
/// for (std::int64_t it = 0; it < max_iters; ++it) { train_step(); scheduler.step(); }
/// \endcode
///
/// CosineAnnealingLR alone is the decay without the warmup; past T_max it climbs back (the cosine
/// is periodic, as in PyTorch), so stop at T_max or hold the minimum with the LambdaLR above.

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "tinyamp/optim/optimizer.h"

namespace tinyamp::optim {

/// What every scheduler does (torch.optim.lr_scheduler.LRScheduler): it keeps each group's base
/// lr and the number of steps taken, and on every step() sets each group's lr to the subclass's
/// closed form. It keeps a reference to the optimizer, which must outlive it.
class LRScheduler {
public:
    virtual ~LRScheduler() = default;
    LRScheduler(const LRScheduler&) = delete;             ///< a scheduler belongs to one optimizer
    LRScheduler& operator=(const LRScheduler&) = delete;  ///< a scheduler belongs to one optimizer

    /// Advances one step (epoch or iteration) and sets every group's lr to its value there. The
    /// first call warns, as PyTorch does, if the optimizer has not stepped yet.
    void step();
    /// The lrs this scheduler last set (at construction, the lrs at last_epoch 0).
    const std::vector<double>& get_last_lr() const { return last_lrs_; }
    /// How many steps have been taken (PyTorch's last_epoch).
    std::int64_t last_epoch() const { return last_epoch_; }
    /// Each group's lr when the scheduler was made (PyTorch's initial_lr), the base of the closed form.
    const std::vector<double>& base_lrs() const { return base_lrs_; }

protected:
    /// Takes the groups' current lrs as the base lrs; `name` ("StepLR", ...) starts error messages.
    LRScheduler(Optimizer& optimizer, const char* name);
    /// The lr of a group whose base lr is `base_lr` after `epoch` steps: the subclass's closed form.
    virtual double lr_at(double base_lr, std::int64_t epoch) const = 0;
    /// Sets every group's lr to its value at step 0; subclass constructors call it last (PyTorch's
    /// _initial_step), since lr_at is virtual.
    void initial_step() { move_to(0, base_lrs_); }
    /// Throws a value Error unless `base_lrs` fits the optimizer (one lr >= 0 per group) and
    /// `last_epoch` >= 0: the part of load_state_dict that every scheduler shares.
    void check_state(std::int64_t last_epoch, const std::vector<double>& base_lrs) const;
    /// Takes last_epoch and the base lrs of a state (checked by check_state first) and sets every
    /// group's lr to its value there.
    void set_state(std::int64_t last_epoch, const std::vector<double>& base_lrs) { move_to(last_epoch, base_lrs); }
    /// The scheduler's name for messages ("StepLR", ...).
    const char* name() const { return name_; }

private:
    // Computes every group's lr at `epoch` from `base_lrs`, then (nothing thrown) sets the groups'
    // lrs, last_epoch and the base lrs.
    void move_to(std::int64_t epoch, const std::vector<double>& base_lrs);

    Optimizer& optimizer_;
    const char* name_;
    std::int64_t last_epoch_ = 0;
    std::int64_t calls_ = 0;  // step() calls on this object (last_epoch_ may come from a state dict)
    std::vector<double> base_lrs_;
    std::vector<double> last_lrs_;
};

/// What every scheduler's checkpoint saves first: how far it has stepped and the lrs it started
/// from. StepLRState, CosineAnnealingLRState and LambdaLRState add their own settings.
struct LRSchedulerProgress {
    std::int64_t last_epoch = 0;   ///< Steps taken so far.
    std::vector<double> base_lrs;  ///< Each group's lr when the scheduler was made (PyTorch's initial_lr).
};

/// The state_dict() and load_state_dict() of StepLR, CosineAnnealingLR and LambdaLR, over the
/// scheduler's State: its LRSchedulerProgress (which LRScheduler keeps), then the scheduler's own
/// settings (which this class keeps, in a State whose progress it does not read).
template <class State>
class LRSchedulerWithState : public LRScheduler {
public:
    /// What a checkpoint saves (PyTorch's scheduler.state_dict()).
    State state_dict() const
    {
        State state = settings_;
        state.last_epoch = last_epoch();
        state.base_lrs = base_lrs();
        return state;
    }
    /// Checks the state fits this optimizer (one base lr per group), then sets it and the groups' lrs
    /// to their values at last_epoch (PyTorch leaves that to optimizer.load_state_dict; the result
    /// is the same when both are loaded). Throws a value Error, changing nothing, for a state that
    /// does not fit, settings the scheduler refuses, or a negative last_epoch or base lr.
    void load_state_dict(const State& state)
    {
        check_state(state.last_epoch, state.base_lrs);
        check_settings(state);
        settings_ = state;
        set_state(state.last_epoch, state.base_lrs);
    }

protected:
    /// Takes the groups' current lrs as the base lrs, and the settings of `settings`.
    LRSchedulerWithState(Optimizer& optimizer, const char* name, State settings)
        : LRScheduler(optimizer, name), settings_(std::move(settings))
    {
    }
    /// The scheduler's own settings (the fields State adds to LRSchedulerProgress).
    const State& settings() const { return settings_; }
    /// Throws a value Error for settings in a loaded state that the scheduler refuses; none by default.
    virtual void check_settings(const State& /*state*/) const {}

private:
    State settings_;
};

/// What a checkpoint saves of a StepLR.
struct StepLRState : LRSchedulerProgress {
    std::int64_t step_size = 1;    ///< Epochs between two decays.
    double gamma = 0.1;            ///< The factor of each decay.
};

/// Decays every group's lr by \p gamma every \p step_size epochs (torch.optim.lr_scheduler.StepLR):
/// lr = base_lr * gamma^(last_epoch / step_size) (integer division).
class StepLR : public LRSchedulerWithState<StepLRState> {
public:
    /// Takes the groups' current lrs as the base lrs. A step_size below 1 or a gamma <= 0 is a
    /// value Error, in the constructor and in a loaded state.
    StepLR(Optimizer& optimizer, std::int64_t step_size, double gamma = 0.1);

private:
    double lr_at(double base_lr, std::int64_t epoch) const override;
    void check_settings(const StepLRState& state) const override;
};

/// What a checkpoint saves of a CosineAnnealingLR.
struct CosineAnnealingLRState : LRSchedulerProgress {
    std::int64_t T_max = 1;        ///< Steps from the base lr down to eta_min (half a cosine period).
    double eta_min = 0.0;          ///< The lowest lr, reached at last_epoch == T_max.
};

/// Cosine annealing without restarts (torch.optim.lr_scheduler.CosineAnnealingLR), in PyTorch's
/// closed form: lr = eta_min + (base_lr - eta_min) * (1 + cos(pi * last_epoch / T_max)) / 2.
/// The lr is base_lr at step 0 and eta_min at step T_max; past T_max it rises again, with period
/// 2 * T_max, as PyTorch's does. (PyTorch's step() uses an equivalent recursive form; the two
/// agree to rounding, and the closed form does not let rounding build up.)
class CosineAnnealingLR : public LRSchedulerWithState<CosineAnnealingLRState> {
public:
    /// Takes the groups' current lrs as the base lrs. A T_max below 1 or an eta_min that is
    /// negative or not finite is a value Error, in the constructor and in a loaded state.
    CosineAnnealingLR(Optimizer& optimizer, std::int64_t T_max, double eta_min = 0.0);

private:
    double lr_at(double base_lr, std::int64_t epoch) const override;
    void check_settings(const CosineAnnealingLRState& state) const override;
};

/// What a checkpoint saves of a LambdaLR: not the function, which the code that makes the
/// scheduler supplies again (PyTorch saves it only when it is an object with state).
struct LambdaLRState : LRSchedulerProgress {};

/// The lr of every group is its base lr times a factor the user's function gives for the step
/// number (torch.optim.lr_scheduler.LambdaLR with one lr_lambda for all groups):
/// lr = base_lr * lr_lambda(last_epoch). The file's comment shows nanoGPT's warmup + cosine.
class LambdaLR : public LRSchedulerWithState<LambdaLRState> {
public:
    /// Calls `lr_lambda(0)` at once, as PyTorch does, so the groups start at base_lr * lr_lambda(0).
    /// An empty function is a value Error, and so is a factor that is negative or not finite
    /// (at any step; the groups' lrs are then left as they were).
    LambdaLR(Optimizer& optimizer, std::function<double(std::int64_t)> lr_lambda);

private:
    double lr_at(double base_lr, std::int64_t epoch) const override;

    std::function<double(std::int64_t)> lr_lambda_;
};

}  // namespace tinyamp::optim
