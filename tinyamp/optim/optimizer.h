#pragma once
/// \file
/// Optimizer: the base of SGD, Adam and AdamW, as torch.optim.Optimizer, and its state_dict types.
///
/// It holds the parameters in groups (each with its own learning rate, which schedulers change)
/// and, per parameter, named state tensors ("momentum_buffer", "exp_avg", ...). Updates run under
/// NoGradGuard.
///
/// Master weights: under mixed precision keep parameters, gradients and optimizer state f32;
/// autocast casts the weights per op, and GradScaler unscales the f32 gradients before the step.
/// f16/bf16 parameters are accepted, as in PyTorch (their state has their dtype and each update is
/// computed in f32 and rounded once), but small updates round away there (p - lr*g == p).

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "tinyamp/tensor/tensor.h"

namespace tinyamp::optim {

/// Parameters that share a learning rate: ParamGroup{{w1, b1}, 0.1}. Left out, the lr is the
/// optimizer's (its options' lr), as a PyTorch group without "lr" gets the default.
struct ParamGroup {
    std::vector<Tensor> params;  ///< The group's parameters: leaf tensors that require grad.
    /// The group's learning rate; NaN (the default) means not given: the optimizer's lr.
    double lr = std::numeric_limits<double>::quiet_NaN();  // NaN: not given
};

/// A group in a state_dict: its hyperparameters ("lr", "momentum", ...) and the indices of its
/// parameters, numbered 0.. across the groups in order, as PyTorch numbers them.
struct ParamGroupState {
    std::map<std::string, double> options;  ///< "lr" and the optimizer's other hyperparameters.
    std::vector<std::int64_t> params;       ///< The indices of the group's parameters.
};

/// PyTorch's optimizer.state_dict(): the state per parameter index ("step" is a 0-d f32 tensor,
/// as in PyTorch) and the groups. The tensors are copies.
struct OptimizerStateDict {
    std::string type;  ///< "SGD", "Adam", "AdamW"
    /// Per parameter index, its named state tensors; parameters that have not stepped are absent.
    std::map<std::int64_t, std::map<std::string, Tensor>> state;
    std::vector<ParamGroupState> param_groups;  ///< The groups, in order.
};

/// The base of every optimizer (torch.optim.Optimizer): parameter groups, per-parameter state,
/// step(), zero_grad() and state_dict(). Subclasses give the update rule (apply_update) and their
/// hyperparameters. Not copyable: it owns state tied to its parameters.
class Optimizer {
public:
    /// Checks that every parameter is a leaf that requires grad and is in one group only, that
    /// there is at least one, and that every lr is >= 0 (else a value Error); groups without an lr
    /// get \p default_lr.
    Optimizer(std::vector<ParamGroup> groups, double default_lr);
    virtual ~Optimizer() = default;  ///< Virtual: optimizers are used through this base.
    Optimizer(const Optimizer&) = delete;             ///< Not copyable.
    Optimizer& operator=(const Optimizer&) = delete;  ///< Not copyable.

    /// One update from the current gradients (optimizer.step()); parameters without a gradient
    /// are left alone. SGD and Adam update the parameters in place, under NoGradGuard. Under mixed
    /// precision call scaler.step(optimizer) instead, which skips the step for inf/NaN gradients.
    void step();
    /// How many times step() has run. An LR scheduler reads it to warn when it steps first, as
    /// PyTorch's do (a GradScaler that skips the first steps for inf/NaN gradients causes that).
    std::int64_t step_calls() const { return step_calls_; }
    /// The optimizer's name, "SGD", "Adam" or "AdamW": the type a state_dict records.
    virtual std::string type_name() const = 0;
    /// Drops every gradient (PyTorch's zero_grad(set_to_none=True)).
    void zero_grad();
    /// The parameter groups (optimizer.param_groups); a scheduler changes their lr here.
    std::vector<ParamGroup>& param_groups() { return groups_; }
    /// The parameter groups, read-only.
    const std::vector<ParamGroup>& param_groups() const { return groups_; }

    /// The named state of \p param ("momentum_buffer", ...); empty before its first step. A tensor
    /// that is not one of this optimizer's parameters is a value Error.
    const std::map<std::string, Tensor>& state(const Tensor& param) const;

    /// Copies of the groups' hyperparameters and the per-parameter state (optimizer.state_dict()),
    /// for a checkpoint.
    OptimizerStateDict state_dict() const;
    /// Restores groups' hyperparameters and the per-parameter state (converted to each parameter's
    /// dtype). As in PyTorch, saved parameter i is the one at the same position in the groups.
    /// Everything is checked first (type, group and parameter counts, options, state names and
    /// shapes); a mismatch throws a value or shape Error and changes nothing.
    void load_state_dict(const OptimizerStateDict& state);

protected:
    /// The update rule itself (SGD's, Adam's); step() counts the call and runs it.
    virtual void apply_update() = 0;
    /// The state of parameter `index` (numbered across groups), created empty on first use.
    std::map<std::string, Tensor>& state_at(std::size_t index) { return state_[index]; }
    /// The hyperparameters of this optimizer other than lr, for state_dict. They are shared by all
    /// groups (only lr is per group).
    virtual std::map<std::string, double> options() const = 0;
    /// Sets them back from a state_dict (only the keys of options() are passed); checks the
    /// values first and throws without changing anything if one is invalid.
    virtual void set_options(const std::map<std::string, double>& options) = 0;
    /// The state names this optimizer keeps for a parameter, all together once it has stepped
    /// (load_state_dict refuses other names and incomplete state).
    virtual std::vector<std::string> state_names() const = 0;
    /// Calls fn(group, param, index) for each parameter with a gradient, index across groups.
    template <class Fn>
    void for_each_param_with_grad(Fn&& fn)
    {
        std::size_t index = 0;
        for (ParamGroup& group : groups_)
            for (const Tensor& p : group.params) {
                if (p.grad().defined()) fn(group, p, index);
                ++index;
            }
    }

private:
    using State = std::map<std::size_t, std::map<std::string, Tensor>>;  // parameter index -> name -> tensor
    /// load_state_dict's checks of the loaded groups; returns each saved parameter id's index here.
    std::map<std::int64_t, std::size_t> check_loaded_groups(const OptimizerStateDict& sd) const;
    /// load_state_dict's new state, checked and converted to each parameter's dtype and device.
    State loaded_state(const OptimizerStateDict& sd, const std::map<std::int64_t, std::size_t>& index_of) const;
    const Tensor& param_at(std::size_t index) const;

    std::int64_t step_calls_ = 0;
    std::vector<ParamGroup> groups_;
    State state_;
};

namespace detail {

/// Throws a value Error with PyTorch's message, "Invalid <what>: <x> (it must be >= 0)", unless
/// x >= 0 (a NaN fails too): how the optimizers check their lr, momentum, eps and weight_decay.
void check_non_negative(const char* what, double x);

}  // namespace detail

}  // namespace tinyamp::optim
