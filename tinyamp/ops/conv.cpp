// conv2d as one op (one node named "conv2d"): forward lays the input patches out as columns
// (im2col) and multiplies them by the weight in a single GEMM. Backward is made of dispatched ops,
// so it runs in the forward's dtype: the input's gradient is col2im(W^T · dY), the weight's
// dY · im2col(x)^T, the bias's the sum of dY over batch and pixels. im2col and col2im are ops of
// their own here (each the other's gradient), used only by that backward.
#include "tinyamp/ops/conv.h"

#include <type_traits>

#include "kernels/cpu/im2col.h"
#include "tinyamp/tensor/factories.h"
#include "tinyamp/tensor/layout.h"
#include "tinyamp/dispatch/dispatch.h"
#include "tinyamp/ops/matmul.h"
#include "tinyamp/ops/reduce.h"
#include "tinyamp/ops/type_promotion.h"

namespace tinyamp {
namespace {

using kernels::cpu::Conv2dGeometry;

// Checks the shapes and arguments of a conv2d and returns its geometry.
Conv2dGeometry geometry(const Tensor& input, const Tensor& weight, const Tensor& bias, Size2d stride, Size2d padding)
{
    TINYAMP_CHECK(input.dim() == 4, shape, "conv2d: expected input of shape [N, C, H, W], but got shape ", shape_str(input.shape()),
                  input.dim() == 3 ? "; for one image add the batch dimension with unsqueeze(0)" : "");
    TINYAMP_CHECK(weight.dim() == 4, shape, "conv2d: expected weight of shape [out_channels, in_channels, kh, kw], but got shape ",
                  shape_str(weight.shape()));
    TINYAMP_CHECK(input.size(1) == weight.size(1), shape, "conv2d: input of shape ", shape_str(input.shape()), " has ", input.size(1),
                  " channels, but weight of shape ", shape_str(weight.shape()), " expects ", weight.size(1), " (its second dimension)");
    if (bias.defined())
        TINYAMP_CHECK(bias.dim() == 1 && bias.size(0) == weight.size(0), shape, "conv2d: bias of shape ", shape_str(bias.shape()),
                      " does not fit weight of shape ", shape_str(weight.shape()), ": it must have shape [", weight.size(0),
                      "] (one per output channel)");
    TINYAMP_CHECK(stride.height >= 1 && stride.width >= 1, value, "conv2d: stride must be at least 1, but got [", stride.height, ", ",
                  stride.width, "]");
    TINYAMP_CHECK(padding.height >= 0 && padding.width >= 0, value, "conv2d: padding must not be negative, but got [", padding.height, ", ",
                  padding.width, "]");
    const Conv2dGeometry g{.batch = input.size(0),
                           .channels = input.size(1),
                           .height = input.size(2),
                           .width = input.size(3),
                           .kernel_h = weight.size(2),
                           .kernel_w = weight.size(3),
                           .stride_h = stride.height,
                           .stride_w = stride.width,
                           .pad_h = padding.height,
                           .pad_w = padding.width};
    const std::int64_t padded_h = g.height + 2 * g.pad_h, padded_w = g.width + 2 * g.pad_w;
    TINYAMP_CHECK(g.kernel_h <= padded_h && g.kernel_w <= padded_w, shape, "conv2d: the kernel [", g.kernel_h, ", ", g.kernel_w,
                  "] (weight of shape ", shape_str(weight.shape()), ") is larger than the padded input [", padded_h, ", ", padded_w,
                  "] (input of shape ", shape_str(input.shape()), ", padding [", g.pad_h, ", ", g.pad_w,
                  "]); pad more or use a smaller kernel");
    return g;
}

// x [N, C, H, W] -> columns [C*kh*kw, N*OH*OW], without autograd.
Tensor im2col_kernel(const Tensor& x, const Conv2dGeometry& g)
{
    const Tensor input = layout::contiguous(x);
    Tensor cols = empty({g.col_rows(), g.col_cols()}, x.dtype());
    if (cols.numel() == 0) return cols;
    visit_float_dtype(x.dtype(), [&](auto tag) {
        using T = decltype(tag);
        kernels::cpu::im2col(input.data_ptr<T>(), g, cols.data_ptr<T>());
    });
    return cols;
}

// What im2col and col2im save: the geometry alone, which their gradients (each other) need.
struct GeometrySaved {
    Conv2dGeometry geometry;
};

// The column matrix of a conv2d input; its gradient is col2im.
struct Im2colOp {
    static constexpr const char* name = "im2col";
    using Saved = GeometrySaved;
    static Tensor forward(ContextWith<Saved>& ctx, const Tensor& x, const Conv2dGeometry& g)
    {
        ctx.saved.geometry = g;
        return im2col_kernel(x, g);
    }
    static std::vector<Tensor> backward(ContextWith<Saved>& ctx, const Tensor& grad);
};

// Columns back onto the input they were cut from, overlapping patches adding up; its gradient is im2col.
struct Col2imOp {
    static constexpr const char* name = "col2im";
    using Saved = GeometrySaved;
    static Tensor forward(ContextWith<Saved>& ctx, const Tensor& cols, const Conv2dGeometry& g)
    {
        ctx.saved.geometry = g;
        const Tensor c = layout::contiguous(cols);
        Tensor x = zeros({g.batch, g.channels, g.height, g.width}, cols.dtype());
        if (c.numel() == 0) return x;
        visit_float_dtype(cols.dtype(), [&](auto tag) {
            using T = decltype(tag);
            kernels::cpu::col2im(c.data_ptr<T>(), g, x.data_ptr<T>());
        });
        return x;
    }
    static std::vector<Tensor> backward(ContextWith<Saved>& ctx, const Tensor& grad)
    {
        return {dispatch<Im2colOp>(grad, ctx.saved.geometry)};
    }
};

std::vector<Tensor> Im2colOp::backward(ContextWith<Saved>& ctx, const Tensor& grad)
{
    return {dispatch<Col2imOp>(grad, ctx.saved.geometry)};
}

struct Conv2dOp {
    static constexpr const char* name = "conv2d";
    struct Saved {
        Conv2dGeometry geometry;
    };
    static Tensor forward(ContextWith<Saved>& ctx, const Tensor& input, const Tensor& weight, const Tensor& bias, Size2d stride, Size2d padding)
    {
        require_cpu(name, {input, weight, bias});
        detail::check_same_float_dtype(name, bias.defined() ? "input, weight and bias" : "input and weight", {input, weight, bias});
        const Conv2dGeometry g = geometry(input, weight, bias, stride, padding);
        ctx.save_for_backward({input, weight});
        ctx.saved.geometry = g;
        const std::int64_t out_channels = weight.size(0);
        // [O, C*kh*kw] · [C*kh*kw, N*OH*OW] -> [O, N*OH*OW]; the GEMM's epilogue adds each output
        // channel's bias to its row before the one rounding.
        Tensor out = empty({out_channels, g.col_cols()}, input.dtype());
        detail::gemm_bias_into(layout::reshape(weight, {out_channels, g.col_rows()}), im2col_kernel(input, g), bias,
                               detail::BiasAcross::each_column, out);
        // The columns run over (image, pixel): [O, N, OH, OW] -> [N, O, OH, OW].
        const Tensor by_channel = layout::view(out, {out_channels, g.batch, g.out_height(), g.out_width()});
        return layout::contiguous(layout::permute(by_channel, {1, 0, 2, 3}));
    }
    static std::vector<Tensor> backward(ContextWith<Saved>& ctx, const Tensor& grad)
    {
        const Tensor& input = ctx.saved_tensors()[0];
        const Tensor& weight = ctx.saved_tensors()[1];
        const auto& g = ctx.saved.geometry;
        const std::int64_t out_channels = weight.size(0);
        const Tensor grad_cols = grad.transpose(0, 1).reshape({out_channels, g.col_cols()});  // dY in the GEMM's layout
        Tensor grad_input, grad_weight, grad_bias;
        if (ctx.needs_input_grad(0)) grad_input = dispatch<Col2imOp>(mm(weight.reshape({out_channels, g.col_rows()}).t(), grad_cols), g);
        if (ctx.needs_input_grad(1)) grad_weight = mm(grad_cols, dispatch<Im2colOp>(input, g).t()).reshape(weight.shape());
        if (ctx.needs_input_grad(2)) grad_bias = sum(grad, {0, 2, 3});
        return {grad_input, grad_weight, grad_bias};
    }
};

}  // namespace

Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, Size2d stride, Size2d padding)
{
    return dispatch<Conv2dOp>(input, weight, bias, stride, padding);
}

}  // namespace tinyamp
