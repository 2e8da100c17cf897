#pragma once
// SGD with momentum, dampening, Nesterov and weight decay, as torch.optim.SGD.

#include "tinyamp/optim/optimizer.h"

namespace tinyamp::optim {

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
    /// Several groups, each with its own lr (options.lr for a group without one); the other
    /// options are shared.
    SGD(std::vector<ParamGroup> groups, SGDOptions options);
    std::string type_name() const override { return "SGD"; }
    /// The momentum buffer of a parameter (undefined before its first step).
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
