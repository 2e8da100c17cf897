// softmax and log_softmax: forward with the lane kernel of kernels/cpu/softmax_loops.h, backward
// written with other ops in the compute dtype (f32 for f16/bf16), like the forward.
#include "tinyamp/ops/softmax.h"

#include "kernels/cpu/softmax_loops.h"
#include "kernels/cuda/softmax_cuda.h"
#include "tinyamp/tensor/factories.h"
#include "tinyamp/tensor/layout.h"
#include "tinyamp/dispatch/dispatch.h"
#include "tinyamp/ops/elementwise.h"
#include "tinyamp/ops/reduce.h"
#include "tinyamp/ops/type_promotion.h"

namespace tinyamp {
namespace {

using kernels::cpu::SoftmaxKind;

// The dtype the backward computes in: f64 stays f64, everything else runs in f32.
DType compute_dtype(DType dtype) { return dtype == DType::f64 ? DType::f64 : DType::f32; }

// The result in `dtype` (the input's own unless one is given), with the conversion done here, in
// the op, so a graph shows one softmax node whose input is the unconverted tensor.
Tensor softmax_forward(const char* op, const Tensor& x, std::int64_t dim, std::optional<DType> dtype, SoftmaxKind kind)
{
    const Device device = op_device(op, {x});
    if (dtype)
        TINYAMP_CHECK(is_floating_point(*dtype), dtype, op, ": dtype must be a floating point dtype, got ", dtype_name(*dtype));
    const DType out_dtype = dtype.value_or(x.dtype());
    TINYAMP_CHECK(is_floating_point(out_dtype), dtype, op, " needs a floating point tensor, got ", dtype_name(x.dtype()),
                  "; pass dtype=f32 or convert it with .to(f32) first");
    const std::int64_t d = wrap_dim(dim, x.dim());
    const Tensor in = layout::contiguous(layout::convert(x, out_dtype));
    // Seen as [outer, n, inner] with `dim` in the middle (a 0-D tensor is one lane of one value).
    std::int64_t outer = 1, n = 1, inner = 1;
    for (std::int64_t k = 0; k < x.dim(); ++k) {
        if (k < d) outer *= x.size(k);
        if (k == d) n = x.size(k);
        if (k > d) inner *= x.size(k);
    }
    Tensor out = empty(x.shape(), out_dtype, device);
    if (device.is_cuda()) {
        kernels::cuda::softmax_lanes(in.data_ptr(), out.data_ptr(), out_dtype, outer, n, inner, kind == SoftmaxKind::log_probabilities,
                                     device.index());
        return out;
    }
    visit_float_dtype(out_dtype, [&](auto tag) {
        using T = decltype(tag);
        kernels::cpu::softmax_lanes(in.data_ptr<T>(), out.data_ptr<T>(), outer, n, inner, kind);
    });
    return out;
}

// softmax and log_softmax are one op but for the kernel's kind and the backward formula. Both
// keep their output (the backward formulas are written in it), the dim and x's dtype.
template <SoftmaxKind kind>
struct SoftmaxFamilyOp {
    static constexpr const char* name = kind == SoftmaxKind::probabilities ? "softmax" : "log_softmax";
    struct Saved {
        std::int64_t dim = 0;
        DType input_dtype = DType::f32;
    };
    static Tensor forward(ContextWith<Saved>& ctx, const Tensor& x, std::int64_t dim, std::optional<DType> dtype)
    {
        Tensor y = softmax_forward(name, x, dim, dtype, kind);
        ctx.save_for_backward({y});
        ctx.saved = {wrap_dim(dim, x.dim()), x.dtype()};
        return y;
    }
    static std::vector<Tensor> backward(ContextWith<Saved>& ctx, const Tensor& grad)
    {
        const DType c = compute_dtype(grad.dtype());
        const Tensor y = ctx.saved_tensors()[0].to(c);
        const Tensor g = grad.to(c);
        const std::int64_t dim = ctx.saved.dim;
        Tensor gx;
        if constexpr (kind == SoftmaxKind::probabilities)
            gx = mul(y, sub(g, sum(mul(g, y), {dim}, true)));  // dx = y * (g - sum(g * y, dim))
        else
            gx = sub(g, mul(exp(y), sum(g, {dim}, true)));  // dx = g - exp(y) * sum(g, dim), where exp(y) is the softmax
        return {gx.to(ctx.saved.input_dtype)};
    }
};

using SoftmaxOp = SoftmaxFamilyOp<SoftmaxKind::probabilities>;
using LogSoftmaxOp = SoftmaxFamilyOp<SoftmaxKind::log_probabilities>;

}  // namespace

Tensor softmax(const Tensor& x, std::int64_t dim, std::optional<DType> dtype) { return dispatch<SoftmaxOp>(x, dim, dtype); }
Tensor log_softmax(const Tensor& x, std::int64_t dim, std::optional<DType> dtype) { return dispatch<LogSoftmaxOp>(x, dim, dtype); }

}  // namespace tinyamp
