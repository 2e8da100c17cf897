#pragma once
// nn::Conv2d: a 2-D convolution layer, as torch.nn.Conv2d (no dilation or groups). The forward is
// the op tinyamp::conv2d, so autocast applies to it as to Linear.
//
//     auto conv = std::make_shared<nn::Conv2d>(1, 8, 3, 1, 1);  // 3x3 kernel, stride 1, padding 1
//     Tensor y = (*conv)(x);                                   // [N, 1, H, W] -> [N, 8, H, W]

#include <cstdint>

#include "tinyamp/nn/module.h"
#include "tinyamp/ops/conv.h"

namespace tinyamp::nn {

class Conv2d : public Module {
public:
    Conv2d(std::int64_t in_channels, std::int64_t out_channels, Size2d kernel_size, Size2d stride = 1, Size2d padding = 0,
           bool bias = true);

    Tensor forward(const Tensor& input) override;
    std::string type_name() const override { return "Conv2d"; }
    std::string extra_repr() const override;

    const std::int64_t in_channels;
    const std::int64_t out_channels;
    const Size2d kernel_size;
    const Size2d stride;
    const Size2d padding;
    Tensor weight;  ///< [out_channels, in_channels, kernel height, kernel width]
    Tensor bias;    ///< [out_channels], or undefined when made with bias = false
};

}  // namespace tinyamp::nn
