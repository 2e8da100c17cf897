#pragma once
/// \file
/// Activation layers: modules around the elementwise ops, for use in a Sequential.
///
/// Neither op is in autocast's policy tables, so both run in the dtype of their input (an f16
/// input under autocast gives an f16 output).

#include "tinyamp/nn/module.h"

namespace tinyamp::nn {

/// max(x, 0), as torch.nn.ReLU. The output has the input's dtype; a bool input is an
/// Error(dtype).
class ReLU : public Module {
public:
    /// relu(input), elementwise.
    Tensor forward(const Tensor& input) override;
    std::string type_name() const override { return "ReLU"; }
};

/// x * Phi(x) with the exact normal CDF, as torch.nn.GELU() (approximate='none'). A floating
/// input keeps its dtype; an integer or bool input gives f32.
class GELU : public Module {
public:
    /// gelu(input), elementwise.
    Tensor forward(const Tensor& input) override;
    std::string type_name() const override { return "GELU"; }
    std::string extra_repr() const override { return "approximate='none'"; }
};

}  // namespace tinyamp::nn
