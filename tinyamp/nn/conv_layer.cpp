#include "tinyamp/nn/conv_layer.h"

#include <cmath>
#include <sstream>
#include <string>

#include "tinyamp/nn/linear_layer.h"  // uniform_init

namespace tinyamp::nn {

Conv2d::Conv2d(std::int64_t in, std::int64_t out, Size2d kernel, Size2d stride_, Size2d padding_, bool with_bias)
    : in_channels(in), out_channels(out), kernel_size(kernel), stride(stride_), padding(padding_)
{
    TINYAMP_CHECK(in > 0 && out > 0 && kernel.height > 0 && kernel.width > 0, value, "Conv2d(", in, ", ", out,
                  "): channels and kernel sizes must be positive");
    TINYAMP_CHECK(stride.height > 0 && stride.width > 0 && padding.height >= 0 && padding.width >= 0, value,
                  "Conv2d: stride must be positive and padding non-negative");
    // As PyTorch: every output sums in_channels * kh * kw products, so that is the fan-in.
    const double bound = 1.0 / std::sqrt(double(in * kernel.height * kernel.width));
    weight = register_parameter("weight", uniform_init({out, in, kernel.height, kernel.width}, bound));
    if (with_bias) bias = register_parameter("bias", uniform_init({out}, bound));
}

Tensor Conv2d::forward(const Tensor& input) { return conv2d(input, weight, bias, stride, padding); }

std::string Conv2d::extra_repr() const
{
    std::ostringstream out;
    auto pair = [&](Size2d s) { out << "(" << s.height << ", " << s.width << ")"; };
    out << in_channels << ", " << out_channels << ", kernel_size=";
    pair(kernel_size);
    out << ", stride=";
    pair(stride);
    // PyTorch leaves out settings at their defaults: padding 0 and bias=True.
    if (padding.height != 0 || padding.width != 0) {
        out << ", padding=";
        pair(padding);
    }
    if (!bias.defined()) out << ", bias=False";
    return out.str();
}

}  // namespace tinyamp::nn
