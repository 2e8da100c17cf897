#pragma once
// 2-D convolution as in PyTorch (strictly a cross-correlation: the kernel is not flipped),
// computed as im2col + one matrix product (see kernels/cpu/im2col.h).

#include <cstdint>

#include "tinyamp/core/tensor.h"

namespace tinyamp {

/// One size per spatial dimension (height, width). A single number means the same for both, so
/// conv2d(x, w, b, 2, 1) and conv2d(x, w, b, {2, 1}, {1, 0}) read as they do in PyTorch.
struct Size2d {
    std::int64_t height;
    std::int64_t width;
    Size2d(std::int64_t both) : height(both), width(both) {}  // implicit on purpose: conv2d(x, w, b, 2)
    Size2d(std::int64_t h, std::int64_t w) : height(h), width(w) {}
};

/// input [N, C, H, W], weight [O, C, kh, kw], bias [O] or undefined -> [N, O, OH, OW] with
/// OH = (H + 2 * padding.height - kh) / stride.height + 1 (likewise OW). Zero padding. All tensors
/// must share one floating point dtype; f16/bf16 accumulate in f32 and round once.
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias = Tensor(), Size2d stride = 1, Size2d padding = 0);

}  // namespace tinyamp
