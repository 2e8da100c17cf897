#pragma once
// Activation layers: modules around the elementwise ops, for use in a Sequential.

#include "tinyamp/nn/module.h"

namespace tinyamp::nn {

/// max(x, 0), as torch.nn.ReLU.
class ReLU : public Module {
public:
    Tensor forward(const Tensor& input) override;
    std::string type_name() const override { return "ReLU"; }
};

/// x * Phi(x) with the exact normal CDF, as torch.nn.GELU() (approximate='none').
class GELU : public Module {
public:
    Tensor forward(const Tensor& input) override;
    std::string type_name() const override { return "GELU"; }
    std::string extra_repr() const override { return "approximate='none'"; }
};

}  // namespace tinyamp::nn
