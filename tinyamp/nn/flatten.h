#pragma once
// nn::Flatten: merges dims start_dim..end_dim into one, as torch.nn.Flatten. The default keeps the
// batch dim: [N, C, H, W] -> [N, C*H*W], the step from convolutions to a Linear.

#include <cstdint>

#include "tinyamp/nn/module.h"

namespace tinyamp::nn {

class Flatten : public Module {
public:
    explicit Flatten(std::int64_t start = 1, std::int64_t end = -1) : start_dim(start), end_dim(end) {}

    Tensor forward(const Tensor& input) override;
    std::string type_name() const override { return "Flatten"; }
    std::string extra_repr() const override;

    const std::int64_t start_dim;
    const std::int64_t end_dim;
};

}  // namespace tinyamp::nn
