#pragma once
/// \file
/// SGD with momentum, dampening, Nesterov and weight decay, as torch.optim.SGD.

#include "tinyamp/optim/optimizer.h"

namespace tinyamp::optim {

/// SGD's hyperparameters. The constructors check them: a negative lr, momentum or weight_decay,
/// or nesterov without a momentum > 0 and zero dampening, is a value Error.
struct SGDOptions {
    double lr = 1e-3;           ///< The learning rate, for every group that gives none of its own (PyTorch's default since 2.2).
    double momentum = 0.0;      ///< The momentum factor; 0 keeps no momentum buffer.
    double dampening = 0.0;     ///< Dampening for momentum: the new step counts (1 - dampening).
    double weight_decay = 0.0;  ///< L2 penalty, added to the gradient as weight_decay * p.
    bool nesterov = false;      ///< Nesterov momentum (needs momentum > 0 and no dampening).
};

/// PyTorch's SGD: d = g + weight_decay p; with momentum, buf = momentum buf + (1 - dampening) d
/// (buf = d the first time) and d = buf, or d + momentum buf with nesterov; then p -= lr d.
/// The state "momentum_buffer" (kept only with momentum) has the parameter's dtype; the update is
/// computed in f32 (f64 for f64 parameters) and rounded once into each tensor's dtype.
class SGD : public Optimizer {
public:
    /// All of \p params in one group with options.lr.
    SGD(std::vector<Tensor> params, SGDOptions options);
    /// Several groups, each with its own lr (options.lr for a group without one); the other
    /// options are shared.
    SGD(std::vector<ParamGroup> groups, SGDOptions options);
    /// "SGD".
    std::string type_name() const override { return "SGD"; }
    /// The momentum buffer of a parameter (undefined before its first step, and without
    /// momentum). A tensor that is not one of this optimizer's parameters is a value Error.
    Tensor momentum_buffer(const Tensor& param) const;

protected:
    void apply_update() override;
    std::map<std::string, double> options() const override;
    void set_options(const std::map<std::string, double>& options) override;
    std::vector<std::string> state_names() const override { return {"momentum_buffer"}; }

private:
    SGDOptions options_;
};

}  // namespace tinyamp::optim
