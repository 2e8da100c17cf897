// Elementwise ops, math functions: exp, log, sqrt, tanh, sigmoid, erf, relu and gelu. Each op is
// a Function (forward computes with the elementwise kernels, backward is written with other ops,
// so it runs in the dtypes the forward ran in) plus the public function that hands it to the
// dispatcher; the helpers shared with elementwise_arithmetic.cpp and elementwise_compare.cpp are
// in elementwise_forward.h.
#include "tinyamp/ops/elementwise.h"

#include <cmath>
#include <numbers>
#include <vector>

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
    static std::vector<Tensor> backward(Context& ctx, const Tensor& grad) { return {mul(grad, gt(ctx.saved_tensors()[0], 0.0))}; }
};

struct GeluOp {
    static constexpr const char* name = "gelu";
    static Tensor forward(Context& ctx, const Tensor& x)
    {
        ctx.save_for_backward({x});
        return unary_float(name, UnaryOp::gelu, x, [](auto v) {
            using V = decltype(v);
            return v * V(0.5) * (V(1) + std::erf(v * V(std::numbers::sqrt2 / 2)));
        });
    }
    static std::vector<Tensor> backward(Context& ctx, const Tensor& grad)
    {
        // d/dx [x Phi(x)] = Phi(x) + x phi(x)
        const Tensor& x = ctx.saved_tensors()[0];
        const Tensor cdf = mul(add(erf(mul(x, std::numbers::sqrt2 / 2)), 1.0), 0.5);
        const Tensor pdf = mul(exp(mul(mul(x, x), -0.5)), 1.0 / std::sqrt(2 * std::numbers::pi));
        return {mul(grad, add(cdf, mul(x, pdf)))};
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
Tensor gelu(const Tensor& x) { return dispatch<GeluOp>(x); }

}  // namespace tinyamp
