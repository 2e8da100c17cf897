#pragma once
/// \file
/// Adam and AdamW, as torch.optim.Adam and torch.optim.AdamW (no amsgrad).
///
/// Per parameter the state is: "step" t (a 0-D f32 tensor, as in PyTorch), the first moment m
/// ("exp_avg") and the second moment v ("exp_avg_sq"). m and v have the parameter's dtype, so
/// they are f32 with f32 master weights.
///
/// \code
/// m = b1 m + (1 - b1) g          v = b2 v + (1 - b2) g^2
/// p -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)
/// \endcode
///
/// Adam's weight_decay is L2 (g += wd p, so it is scaled by 1/sqrt(v) too); AdamW's is decoupled
/// (p *= 1 - lr wd, before the update), the fix of Loshchilov & Hutter.

#include "tinyamp/optim/optimizer.h"

namespace tinyamp::optim {

/// Adam's hyperparameters, with PyTorch's defaults. The constructors check them (a value Error
/// for a negative lr, eps or weight_decay, or a beta outside [0, 1)).
struct AdamOptions {
    double lr = 1e-3;            ///< The learning rate, for every group that gives none of its own.
    double beta1 = 0.9;          ///< The decay of the first moment m (PyTorch's betas[0]).
    double beta2 = 0.999;        ///< The decay of the second moment v (PyTorch's betas[1]).
    double eps = 1e-8;           ///< Added to the denominator sqrt(v) / sqrt(1 - b2^t).
    double weight_decay = 0.0;   ///< L2 penalty, added to the gradient as wd * p.
};

/// AdamW's hyperparameters, with PyTorch's defaults: those of Adam, but a decoupled
/// weight_decay of 0.01.
struct AdamWOptions {
    double lr = 1e-3;            ///< The learning rate, for every group that gives none of its own.
    double beta1 = 0.9;          ///< The decay of the first moment m (PyTorch's betas[0]).
    double beta2 = 0.999;        ///< The decay of the second moment v (PyTorch's betas[1]).
    double eps = 1e-8;           ///< Added to the denominator sqrt(v) / sqrt(1 - b2^t).
    double weight_decay = 1e-2;  ///< Decoupled decay: p *= 1 - lr * weight_decay before each update.
};

/// Adam, as torch.optim.Adam: the update of the file's formula, with L2 weight decay.
///
/// The update loop computes in f32 (f64 for f64 parameters), with the same operations in the
/// same order as PyTorch's single-tensor Adam, and rounds once into each tensor's dtype. Under
/// mixed precision give it f32 master weights and step it through GradScaler.
class Adam : public Optimizer {
public:
    /// All of \p params in one group with options.lr.
    Adam(std::vector<Tensor> params, AdamOptions options = {});
    /// Several groups, each with its own lr (options.lr for a group without one); the other
    /// options are shared.
    Adam(std::vector<ParamGroup> groups, AdamOptions options = {});
    /// "Adam", or "AdamW" for an AdamW.
    std::string type_name() const override { return decoupled_ ? "AdamW" : "Adam"; }

protected:
    void apply_update() override;
    /// The constructor AdamW uses: with \p decoupled_weight_decay, weight_decay decays the
    /// weights directly (AdamW) instead of adding to the gradient.
    Adam(std::vector<ParamGroup> groups, AdamOptions options, bool decoupled_weight_decay);
    std::map<std::string, double> options() const override;
    void set_options(const std::map<std::string, double>& options) override;
    std::vector<std::string> state_names() const override { return {"step", "exp_avg", "exp_avg_sq"}; }

private:
    AdamOptions options_;
    bool decoupled_;
};

/// AdamW, as torch.optim.AdamW: Adam with decoupled weight decay (p *= 1 - lr wd before each
/// update), so the decay is not scaled by 1/sqrt(v).
class AdamW : public Adam {
public:
    /// All of \p params in one group with options.lr.
    AdamW(std::vector<Tensor> params, AdamWOptions options = {});
    /// Several groups, each with its own lr (options.lr for a group without one); the other
    /// options are shared.
    AdamW(std::vector<ParamGroup> groups, AdamWOptions options = {});
};

}  // namespace tinyamp::optim
