#pragma once
// im2col turns a 2-D convolution into one matrix product. Every output pixel of every image
// becomes a column holding the input patch it sees (zeros where the patch hangs over the padding):
//
//   x [N, C, H, W]  ->  cols [C*kh*kw, N*OH*OW]
//     row    (c, ki, kj)  ~  channel c, kernel offset (ki, kj)
//     column (n, oy, ox)  ~  image n, output pixel (oy, ox)
//     cols[(c, ki, kj), (n, oy, ox)] = x[n, c, oy*stride_h - pad_h + ki, ox*stride_w - pad_w + kj]  (0 outside)
//
// so that conv2d is  weight[O, C*kh*kw] * cols  ->  [O, N*OH*OW]  (then moved to [N, O, OH, OW]).
// col2im is its adjoint: it adds each column entry back onto the input pixel it was copied from,
// which is the gradient of im2col (pixels seen by several patches collect several terms).

#include <cstdint>

#include "tinyamp/values/half.h"

namespace tinyamp::kernels::cpu {

/// The sizes of one conv2d: input [batch, channels, height, width], a kernel_h x kernel_w window
/// moved by (stride_h, stride_w) over the input zero-padded by (pad_h, pad_w) on each side.
/// Valid when strides are >= 1, pads >= 0 and the padded input is at least as large as the kernel.
struct Conv2dGeometry {
    std::int64_t batch, channels, height, width;
    std::int64_t kernel_h, kernel_w;
    std::int64_t stride_h, stride_w;
    std::int64_t pad_h, pad_w;

    std::int64_t out_height() const { return (height + 2 * pad_h - kernel_h) / stride_h + 1; }
    std::int64_t out_width() const { return (width + 2 * pad_w - kernel_w) / stride_w + 1; }
    std::int64_t col_rows() const { return channels * kernel_h * kernel_w; }
    std::int64_t col_cols() const { return batch * out_height() * out_width(); }
};

/// Fills cols [col_rows(), col_cols()] (contiguous) from x [batch, channels, height, width] (contiguous).
/// Instantiated for float, double, Half and BFloat16.
template <class T>
void im2col(const T* x, const Conv2dGeometry& g, T* cols);

/// Adds every entry of cols onto the pixel of x it came from: x += im2col^T(cols). Each pixel's
/// sum is taken in f32 (f64 for double), starting from its value in x, and rounded once.
template <class T>
void col2im(const T* cols, const Conv2dGeometry& g, T* x);

}  // namespace tinyamp::kernels::cpu
