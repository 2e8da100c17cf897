#pragma once
/// \file
/// nn::Conv2d: a 2-D convolution layer, as torch.nn.Conv2d (no dilation or groups).
///
/// The forward is the op tinyamp::conv2d, so autocast applies to it as to Linear.
///
/// \code
///     auto conv = std::make_shared<nn::Conv2d>(1, 8, 3, 1, 1);  // 3x3 kernel, stride 1, padding 1
///     Tensor y = (*conv)(x);                                   // [N, 1, H, W] -> [N, 8, H, W]
/// \endcode

#include <cstdint>

#include "tinyamp/nn/module.h"
#include "tinyamp/ops/conv.h"

namespace tinyamp::nn {

/// A 2-D convolution layer, as torch.nn.Conv2d without dilation or groups: input [N, C, H, W]
/// to [N, out_channels, OH, OW], with zero padding.
///
/// weight and bias are f32 parameters (until to(dtype)). The forward is the op tinyamp::conv2d,
/// which runs on the CPU only (Error(device) for CUDA tensors): outside autocast the input must
/// have the weight's dtype (Error(dtype) otherwise, no promotion); under amp::autocast, conv2d
/// is lower_precision_fp, so it runs in the region's dtype (f16 or bf16, accumulating in f32)
/// and the output has that dtype.
class Conv2d : public Module {
public:
    /// weight [out_channels, in_channels, kh, kw] and bias [out_channels] drawn by uniform_init
    /// with bound 1/sqrt(in_channels * kh * kw), as PyTorch. A single number for kernel_size,
    /// stride or padding means the same for height and width. Error(value) for channels or
    /// kernel sizes that are not positive, a stride that is not positive or a negative padding.
    Conv2d(std::int64_t in_channels, std::int64_t out_channels, Size2d kernel_size, Size2d stride = 1, Size2d padding = 0,
           bool bias = true);

    /// conv2d(input, weight, bias, stride, padding): [N, in_channels, H, W] to
    /// [N, out_channels, OH, OW], in the dtype described above.
    Tensor forward(const Tensor& input) override;
    std::string type_name() const override { return "Conv2d"; }
    std::string extra_repr() const override;

    const std::int64_t in_channels;   ///< C, the channels of the input
    const std::int64_t out_channels;  ///< the channels of the output (the number of filters)
    const Size2d kernel_size;         ///< (height, width) of each filter
    const Size2d stride;              ///< steps between output positions, (height, width)
    const Size2d padding;             ///< zeros added on each side, (height, width)
    Tensor weight;  ///< [out_channels, in_channels, kernel height, kernel width]
    Tensor bias;    ///< [out_channels], or undefined when made with bias = false
};

}  // namespace tinyamp::nn
