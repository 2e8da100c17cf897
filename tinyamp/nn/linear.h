#pragma once
// nn::Linear: y = x W^T + b, as torch.nn.Linear. The forward is the op tinyamp::linear, so under
// autocast it runs in the region's low dtype while weight and bias stay f32 master weights.
//
//     auto fc = std::make_shared<nn::Linear>(64, 256);   // weight [256, 64], bias [256]
//     Tensor y = (*fc)(x);                                // x [..., 64] -> y [..., 256]

#include <cstdint>

#include "tinyamp/nn/module.h"

namespace tinyamp::nn {

/// PyTorch's default init of Linear and Conv2d weights and biases: U(-bound, bound) in f32, drawn
/// from default_generator() (so manual_seed makes a model again). kaiming_uniform_(a=sqrt(5))
/// comes down to bound = 1/sqrt(fan_in).
Tensor uniform_init(const Shape& shape, double bound);

class Linear : public Module {
public:
    Linear(std::int64_t in_features, std::int64_t out_features, bool bias = true);

    Tensor forward(const Tensor& input) override;
    std::string type_name() const override { return "Linear"; }
    std::string extra_repr() const override;

    const std::int64_t in_features;
    const std::int64_t out_features;
    Tensor weight;  ///< [out_features, in_features]
    Tensor bias;    ///< [out_features], or undefined when made with bias = false
};

}  // namespace tinyamp::nn
