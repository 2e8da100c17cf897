#pragma once
// Optimizers update parameters in place from their .grad (under NoGradGuard). Parameters, their
// gradients and the optimizer's state stay in the parameters' own dtype: f32 master weights.

#include <vector>

#include "tinyamp/core/tensor.h"

namespace tinyamp::optim {

struct ParamGroup {
    std::vector<Tensor> params;
    double lr = 0.01;
};

class Optimizer {
public:
    explicit Optimizer(std::vector<ParamGroup> groups);
    virtual ~Optimizer() = default;
    /// One update from the current gradients; parameters without a gradient are left alone.
    virtual void step() = 0;
    /// Drops every gradient (PyTorch's zero_grad(set_to_none=True)).
    void zero_grad();
    std::vector<ParamGroup>& param_groups() { return groups_; }
    const std::vector<ParamGroup>& param_groups() const { return groups_; }

private:
    std::vector<ParamGroup> groups_;
};

struct SGDOptions {
    double lr = 0.01;
    double momentum = 0.0;
    double dampening = 0.0;
    double weight_decay = 0.0;
    bool nesterov = false;
};

/// PyTorch's SGD: d = g + weight_decay p; with momentum, buf = momentum buf + (1 - dampening) d
/// (buf = d the first time) and d = buf, or d + momentum buf with nesterov; then p -= lr d.
class SGD : public Optimizer {
public:
    SGD(std::vector<Tensor> params, SGDOptions options);
    void step() override;
    /// The momentum buffer of a parameter (undefined before its first step).
    Tensor momentum_buffer(const Tensor& param) const;

private:
    SGDOptions options_;
    std::vector<Tensor> buffers_;  // parallel to the params of group 0, in order
};

/// Scales all gradients together so their total 2-norm is at most max_norm; returns the norm
/// before clipping. A non-finite norm is an error only with error_if_nonfinite.
double clip_grad_norm_(const std::vector<Tensor>& params, double max_norm, bool error_if_nonfinite = false);

}  // namespace tinyamp::optim
