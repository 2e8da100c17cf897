#pragma once
// nn::Dropout, as torch.nn.Dropout: in training, each element is zeroed with probability p and the
// survivors are scaled by 1/(1-p), so the expected value is unchanged; in eval it is the identity.
// The mask is an ordinary tensor multiplied in with the op tinyamp::mul, so traces and autograd see
// it (the gradient is the same mask).
//
//     auto drop = std::make_shared<nn::Dropout>(0.1);       // masks from default_generator()
//     auto fixed = std::make_shared<nn::Dropout>(0.1, 42);  // masks from its own Generator(42)

#include <cstdint>
#include <optional>

#include "tinyamp/core/generator.h"
#include "tinyamp/nn/module.h"

namespace tinyamp::nn {

class Dropout : public Module {
public:
    explicit Dropout(double p = 0.5, std::optional<std::uint64_t> seed = std::nullopt);

    Tensor forward(const Tensor& input) override;
    std::string type_name() const override { return "Dropout"; }
    std::string extra_repr() const override;

    const double p;

private:
    std::optional<Generator> generator_;  // empty: draw from default_generator()
};

}  // namespace tinyamp::nn
