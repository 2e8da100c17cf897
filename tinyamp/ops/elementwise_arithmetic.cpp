// Elementwise ops, arithmetic: add, sub, mul, div, neg and pow, and the arithmetic operators.
// Each op is a Function (forward computes with the elementwise kernels, backward is written with
// other ops, so it runs in the dtypes the forward ran in) plus the public function that hands it
// to the dispatcher. The math functions are in elementwise_math.cpp, where and the comparisons
// in elementwise_compare.cpp: their loops, instantiated for every dtype, take long to compile,
// and three files compile in parallel. The helpers they share are in elementwise_forward.h.
#include "tinyamp/ops/elementwise.h"

#include <cmath>
#include <vector>

#include "tinyamp/tensor/factories.h"
#include "tinyamp/dispatch/dispatch.h"
#include "tinyamp/ops/cuda_forward.h"
#include "tinyamp/ops/elementwise_forward.h"
#include "tinyamp/ops/reduce.h"
#include "tinyamp/ops/type_promotion.h"

namespace tinyamp {
namespace {

using detail::arithmetic_dtype;
using detail::binary;
using detail::unary_float;
using kernels::BinaryOp;
using kernels::UnaryOp;

// What add and sub keep for backward: each input's shape, to sum a broadcast gradient back to.
struct InputShapes {
    Shape a, b;
};

struct AddOp {
    static constexpr const char* name = "add";
    using Saved = InputShapes;
    static Tensor forward(ContextWith<Saved>& ctx, const Tensor& a, const Tensor& b)
    {
        ctx.saved = {a.shape(), b.shape()};
        return binary(name, BinaryOp::add, a, b, arithmetic_dtype(name, a, b), [](auto x, auto y) { return x + y; });
    }
    static std::vector<Tensor> backward(ContextWith<Saved>& ctx, const Tensor& grad)
    {
        return {sum_to(grad, ctx.saved.a), sum_to(grad, ctx.saved.b)};
    }
};

struct SubOp {
    static constexpr const char* name = "sub";
    using Saved = InputShapes;
    static Tensor forward(ContextWith<Saved>& ctx, const Tensor& a, const Tensor& b)
    {
        // PyTorch refuses a bool operand on either side (add and mul only refuse two of them).
        TINYAMP_CHECK(a.dtype() != DType::boolean && b.dtype() != DType::boolean, dtype,
                      "sub with a bool tensor is not supported, as in PyTorch; to invert a mask use eq(mask, false), "
                      "else convert it with .to(i64) or .to(f32) first");
        ctx.saved = {a.shape(), b.shape()};
        return binary(name, BinaryOp::sub, a, b, arithmetic_dtype(name, a, b), [](auto x, auto y) { return x - y; });
    }
    static std::vector<Tensor> backward(ContextWith<Saved>& ctx, const Tensor& grad)
    {
        return {sum_to(grad, ctx.saved.a), ctx.needs_input_grad(1) ? sum_to(neg(grad), ctx.saved.b) : Tensor()};
    }
};

struct MulOp {
    static constexpr const char* name = "mul";
    static Tensor forward(Context& ctx, const Tensor& a, const Tensor& b)
    {
        ctx.save_for_backward({a, b});
        return binary(name, BinaryOp::mul, a, b, arithmetic_dtype(name, a, b), [](auto x, auto y) { return x * y; });
    }
    static std::vector<Tensor> backward(Context& ctx, const Tensor& grad)
    {
        const Tensor& a = ctx.saved_tensors()[0];
        const Tensor& b = ctx.saved_tensors()[1];
        return {ctx.needs_input_grad(0) ? sum_to(mul(grad, b), a.shape()) : Tensor(),
                ctx.needs_input_grad(1) ? sum_to(mul(grad, a), b.shape()) : Tensor()};
    }
};

struct DivOp {
    static constexpr const char* name = "div";
    struct Saved {
        Shape a_shape;
    };
    static Tensor forward(ContextWith<Saved>& ctx, const Tensor& a, const Tensor& b)
    {
        const DType dtype = float_result_type(arithmetic_dtype(name, a, b));
        Tensor out = binary(name, BinaryOp::div, a, b, dtype, [](auto x, auto y) { return x / y; });
        ctx.save_for_backward({b, out});
        ctx.saved.a_shape = a.shape();
        return out;
    }
    static std::vector<Tensor> backward(ContextWith<Saved>& ctx, const Tensor& grad)
    {
        const Tensor& b = ctx.saved_tensors()[0];
        const Tensor& out = ctx.saved_tensors()[1];
        const Tensor grad_a = div(grad, b);  // d(a/b)/da = 1/b;  d(a/b)/db = -a/b^2 = -(1/b) * out
        return {ctx.needs_input_grad(0) ? sum_to(grad_a, ctx.saved.a_shape) : Tensor(),
                ctx.needs_input_grad(1) ? sum_to(neg(mul(grad_a, out)), b.shape()) : Tensor()};
    }
};

struct NegOp {
    static constexpr const char* name = "neg";
    static Tensor forward(Context&, const Tensor& x)
    {
        TINYAMP_CHECK(x.dtype() != DType::boolean, dtype, "neg of a bool tensor is not defined; use a comparison such as eq(x, false)");
        return binary(name, BinaryOp::neg, x, scalar_like(0.0, x), x.dtype(), [](auto v, auto) { return -v; });
    }
    static std::vector<Tensor> backward(Context&, const Tensor& grad) { return {neg(grad)}; }
};

struct PowScalarOp {
    static constexpr const char* name = "pow";
    struct Saved {
        double exponent = 0;
    };
    static Tensor forward(ContextWith<Saved>& ctx, const Tensor& x, double exponent)
    {
        ctx.save_for_backward({x});
        ctx.saved.exponent = exponent;
        if (x.device().is_cuda()) return cuda_forward::unary(UnaryOp::pow_scalar, x, float_result_type(x.dtype()), exponent);
        return unary_float(name, UnaryOp::pow_scalar, x, [exponent](auto v) { return std::pow(v, decltype(v)(exponent)); });
    }
    static std::vector<Tensor> backward(ContextWith<Saved>& ctx, const Tensor& grad)
    {
        const double p = ctx.saved.exponent;
        const Tensor& x = ctx.saved_tensors()[0];
        if (p == 0.0) return {zeros_like(grad)};
        return {mul(grad, mul(pow(x, p - 1.0), p))};  // d(x^p)/dx = p x^(p-1)
    }
};

struct PowTensorOp {
    static constexpr const char* name = "pow";
    static Tensor forward(Context& ctx, const Tensor& x, const Tensor& exponent)
    {
        const DType dtype = float_result_type(arithmetic_dtype(name, x, exponent));
        Tensor out = binary(name, BinaryOp::pow, x, exponent, dtype, [](auto a, auto b) { return std::pow(a, b); });
        ctx.save_for_backward({x, exponent, out});
        return out;
    }
    static std::vector<Tensor> backward(Context& ctx, const Tensor& grad)
    {
        const Tensor& x = ctx.saved_tensors()[0];
        const Tensor& p = ctx.saved_tensors()[1];
        const Tensor& out = ctx.saved_tensors()[2];
        Tensor grad_x, grad_p;
        if (ctx.needs_input_grad(0)) grad_x = sum_to(mul(grad, mul(p, pow(x, sub(p, 1.0)))), x.shape());
        // d(x^p)/dp = x^p log x; where x^p is 0 the product is 0 (not 0 * -inf).
        if (ctx.needs_input_grad(1))
            grad_p = sum_to(where(eq(out, 0.0), zeros_like(out), mul(grad, mul(out, log(x)))), p.shape());
        return {grad_x, grad_p};
    }
};

}  // namespace

Tensor add(const Tensor& a, const Tensor& b) { return dispatch<AddOp>(a, b); }
Tensor add(const Tensor& a, double b) { return dispatch<AddOp>(a, scalar_like(b, a)); }
Tensor sub(const Tensor& a, const Tensor& b) { return dispatch<SubOp>(a, b); }
Tensor sub(const Tensor& a, double b) { return dispatch<SubOp>(a, scalar_like(b, a)); }
Tensor sub(double a, const Tensor& b) { return dispatch<SubOp>(scalar_like(a, b), b); }
Tensor mul(const Tensor& a, const Tensor& b) { return dispatch<MulOp>(a, b); }
Tensor mul(const Tensor& a, double b) { return dispatch<MulOp>(a, scalar_like(b, a)); }
Tensor div(const Tensor& a, const Tensor& b) { return dispatch<DivOp>(a, b); }
Tensor div(const Tensor& a, double b) { return dispatch<DivOp>(a, scalar_like(b, a)); }
Tensor div(double a, const Tensor& b) { return dispatch<DivOp>(scalar_like(a, b), b); }
Tensor neg(const Tensor& x) { return dispatch<NegOp>(x); }
Tensor pow(const Tensor& x, double exponent) { return dispatch<PowScalarOp>(x, exponent); }
Tensor pow(const Tensor& x, const Tensor& exponent) { return dispatch<PowTensorOp>(x, exponent); }

Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator+(const Tensor& a, double b) { return add(a, b); }
Tensor operator+(double a, const Tensor& b) { return add(b, a); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator-(const Tensor& a, double b) { return sub(a, b); }
Tensor operator-(double a, const Tensor& b) { return sub(a, b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor operator*(const Tensor& a, double b) { return mul(a, b); }
Tensor operator*(double a, const Tensor& b) { return mul(b, a); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor operator/(const Tensor& a, double b) { return div(a, b); }
Tensor operator/(double a, const Tensor& b) { return div(a, b); }
Tensor operator-(const Tensor& x) { return neg(x); }

}  // namespace tinyamp
