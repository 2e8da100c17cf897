// Elementwise ops, math functions: exp, log, sqrt, tanh, sigmoid, erf, relu and gelu. Each op is
// a Function (forward computes with the elementwise kernels, backward is written with other ops,
// so it runs in the dtypes the forward ran in) plus the public function that hands it to the
// dispatcher; the helpers shared with elementwise_arithmetic.cpp and elementwise_compare.cpp are
// in elementwise_forward.h.
#include "tinyamp/ops/elementwise.h"

#include <cmath>
#include <numbers>
#include <type_traits>
#include <vector>

#include "kernels/cpu/gelu_kernel.h"
#include "tinyamp/dispatch/dispatch.h"
#include "tinyamp/ops/elementwise_forward.h"
#include "tinyamp/ops/type_promotion.h"

namespace tinyamp {
namespace {

using detail::binary;
using detail::unary_float;
using kernels::BinaryOp;
using kernels::UnaryOp;

// unary_float for an op whose backward is written in its output (exp, sqrt, tanh, sigmoid): the
// output is kept for it.
template <class Fn>
Tensor unary_float_keeping_output(Context& ctx, const char* op, UnaryOp kind, const Tensor& x, Fn fn)
{
    Tensor out = unary_float(op, kind, x, fn);
    ctx.save_for_backward({out});
    return out;
}

struct ExpOp {
    static constexpr const char* name = "exp";
    static Tensor forward(Context& ctx, const Tensor& x)
    {
        return unary_float_keeping_output(ctx, name, UnaryOp::exp, x, [](auto v) { return std::exp(v); });
    }
    static std::vector<Tensor> backward(Context& ctx, const Tensor& grad) { return {mul(grad, ctx.saved_tensors()[0])}; }
};

struct LogOp {
    static constexpr const char* name = "log";
    static Tensor forward(Context& ctx, const Tensor& x)
    {
        ctx.save_for_backward({x});
        return unary_float(name, UnaryOp::log, x, [](auto v) { return std::log(v); });
    }
    static std::vector<Tensor> backward(Context& ctx, const Tensor& grad) { return {div(grad, ctx.saved_tensors()[0])}; }
};

struct SqrtOp {
    static constexpr const char* name = "sqrt";
    static Tensor forward(Context& ctx, const Tensor& x)
    {
        return unary_float_keeping_output(ctx, name, UnaryOp::sqrt, x, [](auto v) { return std::sqrt(v); });
    }
    static std::vector<Tensor> backward(Context& ctx, const Tensor& grad) { return {div(grad, mul(ctx.saved_tensors()[0], 2.0))}; }
};

struct TanhOp {
    static constexpr const char* name = "tanh";
    static Tensor forward(Context& ctx, const Tensor& x)
    {
        return unary_float_keeping_output(ctx, name, UnaryOp::tanh, x, [](auto v) { return std::tanh(v); });
    }
    static std::vector<Tensor> backward(Context& ctx, const Tensor& grad)
    {
        const Tensor& y = ctx.saved_tensors()[0];
        return {mul(grad, sub(1.0, mul(y, y)))};  // 1 - tanh^2
    }
};

struct SigmoidOp {
    static constexpr const char* name = "sigmoid";
    static Tensor forward(Context& ctx, const Tensor& x)
    {
        // Written so that exp never overflows: for x < 0, e^x / (1 + e^x).
        return unary_float_keeping_output(ctx, name, UnaryOp::sigmoid, x, [](auto v) {
            using V = decltype(v);
            if (v >= V(0)) return V(1) / (V(1) + std::exp(-v));
            const V e = std::exp(v);
            return e / (V(1) + e);
        });
    }
    static std::vector<Tensor> backward(Context& ctx, const Tensor& grad)
    {
        const Tensor& y = ctx.saved_tensors()[0];
        return {mul(grad, mul(y, sub(1.0, y)))};  // s (1 - s)
    }
};

struct ErfOp {
    static constexpr const char* name = "erf";
    static Tensor forward(Context& ctx, const Tensor& x)
    {
        ctx.save_for_backward({x});
        return unary_float(name, UnaryOp::erf, x, [](auto v) { return std::erf(v); });
    }
    static std::vector<Tensor> backward(Context& ctx, const Tensor& grad)
    {
        const Tensor& x = ctx.saved_tensors()[0];
        return {mul(grad, mul(exp(neg(mul(x, x))), 2.0 / std::sqrt(std::numbers::pi)))};  // 2/sqrt(pi) e^(-x^2)
    }
};

struct ReluOp {
    static constexpr const char* name = "relu";
    static Tensor forward(Context& ctx, const Tensor& x)
    {
        TINYAMP_CHECK(x.dtype() != DType::boolean, dtype, "relu of a bool tensor is not defined; convert it with .to(f32) first");
        ctx.save_for_backward({x});
        return binary(name, BinaryOp::relu, x, scalar_like(0.0, x), x.dtype(), [](auto v, auto zero) { return v > zero ? v : zero; });
    }
    static std::vector<Tensor> backward(Context& ctx, const Tensor& grad) { return {threshold_backward(grad, ctx.saved_tensors()[0], 0.0)}; }
};

// relu's backward as one op (PyTorch's threshold_backward): grad where x > threshold, else 0, in
// one pass, in grad's dtype. Its own gradient flows to grad alone (x's is 0 almost everywhere).
struct ThresholdBackwardOp {
    static constexpr const char* name = "threshold_backward";
    struct Saved {
        double threshold = 0;
    };
    static Tensor forward(ContextWith<Saved>& ctx, const Tensor& grad, const Tensor& x, double threshold)
    {
        TINYAMP_CHECK(x.dtype() != DType::boolean && grad.dtype() != DType::boolean, dtype,
                      "threshold_backward takes number tensors, got ", dtype_name(grad.dtype()), " and ", dtype_name(x.dtype()));
        ctx.save_for_backward({x});
        ctx.saved.threshold = threshold;
        if (threshold != 0.0 && op_device(name, {grad, x}).is_cuda()) return mul(grad, gt(x, threshold));  // the CUDA kernel knows 0 only
        return binary(name, BinaryOp::relu_backward, grad, x, grad.dtype(), [threshold](auto g, auto v) {
            return v > decltype(v)(threshold) ? g : decltype(g)(0);
        });
    }
    static std::vector<Tensor> backward(ContextWith<Saved>& ctx, const Tensor& g)
    {
        return {threshold_backward(g, ctx.saved_tensors()[0], ctx.saved.threshold), Tensor()};
    }
};

// phi(x) = e^(-x^2 / 2) / sqrt(2 pi), the normal density, written with ops.
Tensor normal_pdf(const Tensor& x) { return mul(exp(mul(mul(x, x), -0.5)), 1.0 / std::sqrt(2 * std::numbers::pi)); }

struct GeluOp {
    static constexpr const char* name = "gelu";
    static Tensor forward(Context& ctx, const Tensor& x)
    {
        ctx.save_for_backward({x});
        const DType dtype = float_result_type(x.dtype());
        if (dtype == DType::f64 || op_device(name, {x}).is_cuda())
            return unary_float(name, UnaryOp::gelu, x, [](auto v) { return decltype(v)(kernels::cpu::reference::gelu(v)); });
        const Tensor cx = layout::contiguous(layout::convert(x, dtype));  // f32, f16 or bf16: the one-pass kernel
        Tensor out = empty(x.shape(), dtype);
        visit_float_dtype(dtype, [&](auto tag) {
            using T = decltype(tag);
            if constexpr (!std::is_same_v<T, double>) kernels::cpu::gelu_forward(cx.data_ptr<T>(), out.data_ptr<T>(), cx.numel());
        });
        return out;
    }
    static std::vector<Tensor> backward(Context& ctx, const Tensor& grad) { return {gelu_backward(grad, ctx.saved_tensors()[0])}; }
};

// grad (Phi(x) + x phi(x)) in x's dtype: the kernel on the CPU, in double for f64, with ops on a GPU.
Tensor gelu_backward_values(const Tensor& grad, const Tensor& x)
{
    const DType dtype = x.dtype();
    if (op_device("gelu_backward", {grad, x}).is_cuda()) {
        const Tensor cdf = mul(add(erf(mul(x, std::numbers::sqrt2 / 2)), 1.0), 0.5);
        return mul(grad.to(dtype), add(cdf, mul(x, normal_pdf(x))));
    }
    const Tensor cg = layout::contiguous(layout::convert(grad, dtype)), cx = layout::contiguous(x);
    Tensor out = empty(x.shape(), dtype);
    visit_float_dtype(dtype, [&](auto tag) {
        using T = decltype(tag);
        const T *g = cg.data_ptr<T>(), *in = cx.data_ptr<T>();
        T* dx = out.data_ptr<T>();
        if constexpr (std::is_same_v<T, double>)
            for (std::int64_t i = 0; i < cx.numel(); ++i) dx[i] = kernels::cpu::reference::gelu_backward(g[i], in[i]);
        else
            kernels::cpu::gelu_backward(g, in, dx, cx.numel());
    });
    return out;
}

// GELU's backward as one op (PyTorch's gelu_backward), with its own backward: d/d(grad) is
// gelu'(x), d/dx is grad phi(x) (2 - x^2).
struct GeluBackwardOp {
    static constexpr const char* name = "gelu_backward";
    static Tensor forward(Context& ctx, const Tensor& grad, const Tensor& x)
    {
        TINYAMP_CHECK(grad.shape() == x.shape(), shape, "gelu_backward: grad has shape ", shape_str(grad.shape()), " but x has ",
                      shape_str(x.shape()), "; they must be the same");
        TINYAMP_CHECK(is_floating_point(x.dtype()), dtype, "gelu_backward: x must be a float tensor, got ", dtype_name(x.dtype()));
        ctx.save_for_backward({grad, x});
        return gelu_backward_values(grad, x);
    }
    static std::vector<Tensor> backward(Context& ctx, const Tensor& g)
    {
        const Tensor& grad = ctx.saved_tensors()[0];
        const Tensor& x = ctx.saved_tensors()[1];
        return {gelu_backward(g, x), mul(mul(g, grad), mul(normal_pdf(x), sub(2.0, mul(x, x))))};
    }
};

}  // namespace

Tensor exp(const Tensor& x) { return dispatch<ExpOp>(x); }
Tensor log(const Tensor& x) { return dispatch<LogOp>(x); }
Tensor sqrt(const Tensor& x) { return dispatch<SqrtOp>(x); }
Tensor tanh(const Tensor& x) { return dispatch<TanhOp>(x); }
Tensor sigmoid(const Tensor& x) { return dispatch<SigmoidOp>(x); }
Tensor erf(const Tensor& x) { return dispatch<ErfOp>(x); }
Tensor relu(const Tensor& x) { return dispatch<ReluOp>(x); }
Tensor threshold_backward(const Tensor& grad, const Tensor& x, double threshold) { return dispatch<ThresholdBackwardOp>(grad, x, threshold); }
Tensor gelu(const Tensor& x) { return dispatch<GeluOp>(x); }
Tensor gelu_backward(const Tensor& grad, const Tensor& x) { return dispatch<GeluBackwardOp>(grad, x); }

}  // namespace tinyamp
