#pragma once
/// \file
/// conv2d: 2-D convolution as torch.nn.functional.conv2d.
///
/// As in PyTorch it is strictly a cross-correlation (the kernel is not flipped), computed as
/// im2col + one matrix product (see kernels/cpu/im2col.h).

#include <cstdint>

#include "tinyamp/tensor/tensor.h"

namespace tinyamp {

/// One size per spatial dimension (height, width). A single number means the same for both, so
/// conv2d(x, w, b, 2, 1) and conv2d(x, w, b, {2, 1}, {1, 0}) read as they do in PyTorch.
struct Size2d {
    std::int64_t height;  ///< The size along the height (rows).
    std::int64_t width;   ///< The size along the width (columns).
    /// The same size for both dimensions.
    Size2d(std::int64_t both) : height(both), width(both) {}  // implicit on purpose: conv2d(x, w, b, 2)
    /// A height and a width of their own.
    Size2d(std::int64_t h, std::int64_t w) : height(h), width(w) {}
};

/// 2-D convolution (cross-correlation) with zero padding, as torch.nn.functional.conv2d.
///
/// input [N, C, H, W], weight [O, C, kh, kw], bias [O] or undefined -> [N, O, OH, OW] with
/// OH = (H + 2 * padding.height - kh) / stride.height + 1 (likewise OW).
///
/// Dtypes: input, weight and bias must share one floating point dtype (conv2d never promotes);
/// the result has it. f16/bf16 accumulate in f32 and are rounded once; the backward runs in the
/// same dtype. Autocast (CPU and CUDA) casts f16/bf16/f32 operands to the autocast dtype first
/// (policy lower_precision_fp).
///
/// Throws a dtype Error for mixed or non-float dtypes, a shape Error for wrong ranks, a channel
/// mismatch, a bias that is not [O] or a kernel larger than the padded input, a value Error for
/// a stride below 1 or a negative padding, and a device Error for CUDA tensors (CPU only).
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias = Tensor(), Size2d stride = 1, Size2d padding = 0);

}  // namespace tinyamp
