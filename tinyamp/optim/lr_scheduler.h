#pragma once
/// \file
/// StepLR: the learning rate of every group decays by gamma every step_size epochs, as
/// torch.optim.lr_scheduler.StepLR.
///
/// Call step() once per epoch, after the optimizer's steps.
///
/// \code
/// optim::StepLR scheduler(optimizer, /*step_size=*/10, /*gamma=*/0.5);
/// for (epoch ...) { train(); scheduler.step(); }   // lr: 0.1 x10, 0.05 x10, 0.025 ...
/// \endcode

#include <cstdint>
#include <vector>

#include "tinyamp/optim/optimizer.h"

namespace tinyamp::optim {

/// What a checkpoint saves of a StepLR.
struct StepLRState {
    std::int64_t last_epoch = 0;   ///< Epochs stepped so far.
    std::vector<double> base_lrs;  ///< Each group's lr when the scheduler was made (PyTorch's initial_lr).
    std::int64_t step_size = 1;    ///< Epochs between two decays.
    double gamma = 0.1;            ///< The factor of each decay.
};

/// Decays every group's lr by \p gamma every \p step_size epochs (torch.optim.lr_scheduler.StepLR).
/// It keeps a reference to the optimizer, which must outlive it.
class StepLR {
public:
    /// Takes the groups' current lrs as the base lrs. A step_size below 1 or a gamma <= 0 is a
    /// value Error.
    StepLR(Optimizer& optimizer, std::int64_t step_size, double gamma = 0.1);
    /// Advances one epoch: lr = base_lr * gamma^(last_epoch / step_size) (integer division),
    /// computed from the base each time so no rounding error builds up. The first call warns,
    /// as PyTorch does, if the optimizer has not stepped yet.
    void step();
    /// The lrs this scheduler last set (the groups' lrs when it was made, before any step()).
    const std::vector<double>& get_last_lr() const { return last_lrs_; }
    /// How many epochs have been stepped (PyTorch's last_epoch).
    std::int64_t last_epoch() const { return last_epoch_; }

    /// What a checkpoint saves (PyTorch's scheduler.state_dict()).
    StepLRState state_dict() const { return {last_epoch_, base_lrs_, step_size_, gamma_}; }
    /// Checks the state fits this optimizer (one base lr per group), then sets it and the groups' lrs
    /// to their values at last_epoch (PyTorch leaves that to optimizer.load_state_dict; the result
    /// is the same when both are loaded). Throws a value Error, changing nothing, for a state that
    /// does not fit, a step_size or gamma that is not positive, or a negative last_epoch or base lr.
    void load_state_dict(const StepLRState& state);

private:
    void apply();

    Optimizer& optimizer_;
    std::int64_t step_size_;
    double gamma_;
    std::int64_t last_epoch_ = 0;
    std::int64_t calls_ = 0;  // step() calls on this object (last_epoch_ may come from a state dict)
    std::vector<double> base_lrs_;
    std::vector<double> last_lrs_;
};

}  // namespace tinyamp::optim
