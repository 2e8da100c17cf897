// Elementwise ops: each is a Function (forward computes with the elementwise kernels, backward is
// written with other ops, so it runs in the dtypes the forward ran in) plus the public function
// that hands it to the dispatcher.
#include "tinyamp/ops/elementwise.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numbers>

#include "kernels/cpu/elementwise.h"
#include "tinyamp/core/factories.h"
#include "tinyamp/core/layout.h"
#include "tinyamp/dispatch.h"
#include "tinyamp/ops/cuda_forward.h"
#include "tinyamp/ops/reduce.h"
#include "tinyamp/ops/type_promotion.h"

namespace tinyamp {
namespace {

using kernels::cpu::binary_map;
using kernels::cpu::unary_map;

// Calls fn(T{}) for the dtypes arithmetic runs in: the floats and i64.
template <class Fn>
void visit_arithmetic(DType dtype, Fn&& fn)
{
    if (dtype == DType::i64) return fn(std::int64_t{});
    visit_float_dtype(dtype, fn);
}

DType arithmetic_dtype(const char* op, const Tensor& a, const Tensor& b)
{
    const DType d = result_type(a, b);
    TINYAMP_CHECK(d != DType::boolean, dtype, op, " of two bool tensors is not arithmetic; convert one with .to(i64) or .to(f32) first");
    return d;
}

// `t` read as `shape`: itself when it has that shape already (no view to make), else a broadcast view.
Tensor broadcast_to(const Tensor& t, const Shape& shape) { return t.shape() == shape ? t : layout::expand(t, shape); }

// out = fn(a, b) over the broadcast shape, computed in `dtype` (also the result's dtype).
template <class Fn>
Tensor binary(const char* op, const Tensor& a, const Tensor& b, DType dtype, Fn fn)
{
    const Device device = op_device(op, {a, b});
    if (device.is_cuda()) return cuda_forward::binary(op, a, b, dtype, device);
    const Shape shape = broadcast_shapes(a.shape(), b.shape());
    const Tensor ca = broadcast_to(layout::convert(a, dtype), shape);
    const Tensor cb = broadcast_to(layout::convert(b, dtype), shape);
    Tensor out = empty(shape, dtype);
    visit_arithmetic(dtype, [&](auto tag) {
        using T = decltype(tag);
        binary_map(shape, ca.data_ptr<T>(), ca.strides(), cb.data_ptr<T>(), cb.strides(), out.data_ptr<T>(), fn);
    });
    return out;
}

// y = fn(x) in x's float dtype (integers are computed in f32).
template <class Fn>
Tensor unary_float(const char* op, const Tensor& x, Fn fn)
{
    const DType dtype = float_result_type(x.dtype());
    if (op_device(op, {x}).is_cuda()) return cuda_forward::unary(op, x, dtype);
    const Tensor cx = layout::contiguous(layout::convert(x, dtype));
    Tensor out = empty(x.shape(), dtype);
    visit_float_dtype(dtype, [&](auto tag) {
        using T = decltype(tag);
        unary_map(cx.data_ptr<T>(), out.data_ptr<T>(), cx.numel(), fn);
    });
    return out;
}

// Comparisons: both sides in their common dtype, a bool result.
template <class Fn>
Tensor compare(const char* op, const Tensor& a, const Tensor& b, Fn fn)
{
    const Device device = op_device(op, {a, b});
    const DType dtype = result_type(a, b);
    if (device.is_cuda()) return cuda_forward::binary(op, a, b, dtype, device);
    const Shape shape = broadcast_shapes(a.shape(), b.shape());
    const Tensor ca = broadcast_to(layout::convert(a, dtype), shape);
    const Tensor cb = broadcast_to(layout::convert(b, dtype), shape);
    Tensor out = empty(shape, DType::boolean);
    visit_dtype(dtype, [&](auto tag) {
        using T = decltype(tag);
        binary_map(shape, ca.data_ptr<T>(), ca.strides(), cb.data_ptr<T>(), cb.strides(), out.data_ptr<bool>(),
                   [&](auto x, auto y) { return bool(fn(x, y)); });
    });
    return out;
}

// ---------------------------------------------------------------- arithmetic

struct AddOp {
    static constexpr const char* name = "add";
    static Tensor forward(Context& ctx, const Tensor& a, const Tensor& b)
    {
        ctx.save("a_shape", a.shape());
        ctx.save("b_shape", b.shape());
        return binary(name, a, b, arithmetic_dtype(name, a, b), [](auto x, auto y) { return x + y; });
    }
    static std::vector<Tensor> backward(Context& ctx, const Tensor& grad)
    {
        return {sum_to(grad, ctx.get<Shape>("a_shape")), sum_to(grad, ctx.get<Shape>("b_shape"))};
    }
};

struct SubOp {
    static constexpr const char* name = "sub";
    static Tensor forward(Context& ctx, const Tensor& a, const Tensor& b)
    {
        // PyTorch refuses a bool operand on either side (add and mul only refuse two of them).
        TINYAMP_CHECK(a.dtype() != DType::boolean && b.dtype() != DType::boolean, dtype,
                      "sub with a bool tensor is not supported, as in PyTorch; to invert a mask use eq(mask, false), "
                      "else convert it with .to(i64) or .to(f32) first");
        ctx.save("a_shape", a.shape());
        ctx.save("b_shape", b.shape());
        return binary(name, a, b, arithmetic_dtype(name, a, b), [](auto x, auto y) { return x - y; });
    }
    static std::vector<Tensor> backward(Context& ctx, const Tensor& grad)
    {
        return {sum_to(grad, ctx.get<Shape>("a_shape")), ctx.needs_input_grad(1) ? sum_to(neg(grad), ctx.get<Shape>("b_shape")) : Tensor()};
    }
};

struct MulOp {
    static constexpr const char* name = "mul";
    static Tensor forward(Context& ctx, const Tensor& a, const Tensor& b)
    {
        ctx.save_for_backward({a, b});
        return binary(name, a, b, arithmetic_dtype(name, a, b), [](auto x, auto y) { return x * y; });
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
    static Tensor forward(Context& ctx, const Tensor& a, const Tensor& b)
    {
        const DType dtype = float_result_type(arithmetic_dtype(name, a, b));
        Tensor out = binary(name, a, b, dtype, [](auto x, auto y) { return x / y; });
        ctx.save_for_backward({b, out});
        ctx.save("a_shape", a.shape());
        return out;
    }
    static std::vector<Tensor> backward(Context& ctx, const Tensor& grad)
    {
        const Tensor& b = ctx.saved_tensors()[0];
        const Tensor& out = ctx.saved_tensors()[1];
        const Tensor grad_a = div(grad, b);  // d(a/b)/da = 1/b;  d(a/b)/db = -a/b^2 = -(1/b) * out
        return {ctx.needs_input_grad(0) ? sum_to(grad_a, ctx.get<Shape>("a_shape")) : Tensor(),
                ctx.needs_input_grad(1) ? sum_to(neg(mul(grad_a, out)), b.shape()) : Tensor()};
    }
};

struct NegOp {
    static constexpr const char* name = "neg";
    static Tensor forward(Context&, const Tensor& x)
    {
        TINYAMP_CHECK(x.dtype() != DType::boolean, dtype, "neg of a bool tensor is not defined; use a comparison such as eq(x, false)");
        return binary(name, x, scalar_like(0.0, x), x.dtype(), [](auto v, auto) { return -v; });
    }
    static std::vector<Tensor> backward(Context&, const Tensor& grad) { return {neg(grad)}; }
};

struct PowScalarOp {
    static constexpr const char* name = "pow";
    static Tensor forward(Context& ctx, const Tensor& x, double exponent)
    {
        ctx.save_for_backward({x});
        ctx.save("exponent", exponent);
        if (x.device().is_cuda()) return cuda_forward::unary(name, x, float_result_type(x.dtype()), exponent);
        return unary_float(name, x, [exponent](auto v) { return std::pow(v, decltype(v)(exponent)); });
    }
    static std::vector<Tensor> backward(Context& ctx, const Tensor& grad)
    {
        const double p = ctx.get<double>("exponent");
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
        Tensor out = binary(name, x, exponent, dtype, [](auto a, auto b) { return std::pow(a, b); });
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

// ---------------------------------------------------------------- math functions

struct ExpOp {
    static constexpr const char* name = "exp";
    static Tensor forward(Context& ctx, const Tensor& x)
    {
        Tensor out = unary_float(name, x, [](auto v) { return std::exp(v); });
        ctx.save_for_backward({out});
        return out;
    }
    static std::vector<Tensor> backward(Context& ctx, const Tensor& grad) { return {mul(grad, ctx.saved_tensors()[0])}; }
};

struct LogOp {
    static constexpr const char* name = "log";
    static Tensor forward(Context& ctx, const Tensor& x)
    {
        ctx.save_for_backward({x});
        return unary_float(name, x, [](auto v) { return std::log(v); });
    }
    static std::vector<Tensor> backward(Context& ctx, const Tensor& grad) { return {div(grad, ctx.saved_tensors()[0])}; }
};

struct SqrtOp {
    static constexpr const char* name = "sqrt";
    static Tensor forward(Context& ctx, const Tensor& x)
    {
        Tensor out = unary_float(name, x, [](auto v) { return std::sqrt(v); });
        ctx.save_for_backward({out});
        return out;
    }
    static std::vector<Tensor> backward(Context& ctx, const Tensor& grad) { return {div(grad, mul(ctx.saved_tensors()[0], 2.0))}; }
};

struct TanhOp {
    static constexpr const char* name = "tanh";
    static Tensor forward(Context& ctx, const Tensor& x)
    {
        Tensor out = unary_float(name, x, [](auto v) { return std::tanh(v); });
        ctx.save_for_backward({out});
        return out;
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
        Tensor out = unary_float(name, x, [](auto v) {
            using V = decltype(v);
            if (v >= V(0)) return V(1) / (V(1) + std::exp(-v));
            const V e = std::exp(v);
            return e / (V(1) + e);
        });
        ctx.save_for_backward({out});
        return out;
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
        return unary_float(name, x, [](auto v) { return std::erf(v); });
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
        return binary(name, x, scalar_like(0.0, x), x.dtype(), [](auto v, auto zero) { return v > zero ? v : zero; });
    }
    static std::vector<Tensor> backward(Context& ctx, const Tensor& grad) { return {mul(grad, gt(ctx.saved_tensors()[0], 0.0))}; }
};

struct GeluOp {
    static constexpr const char* name = "gelu";
    static Tensor forward(Context& ctx, const Tensor& x)
    {
        ctx.save_for_backward({x});
        return unary_float(name, x, [](auto v) {
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

// ---------------------------------------------------------------- where and comparisons

// cond ? a : b over the broadcast shape of all three, in `dtype` (where's forward, and
// masked_fill's with a 0-D `a`). Any dtype, bool included: the elements are copied, not computed.
Tensor select(const Tensor& cond, const Tensor& a, const Tensor& b, DType dtype, Device device)
{
    if (device.is_cuda()) return cuda_forward::where(cond, a, b, dtype, device);
    const Shape shape = broadcast_shapes(cond.shape(), broadcast_shapes(a.shape(), b.shape()));
    // Start from a, then copy b's elements wherever the condition is false.
    Tensor out = layout::clone(layout::expand(layout::convert(a, dtype), shape));
    const Tensor from_b = layout::contiguous(layout::expand(layout::convert(b, dtype), shape));
    const Tensor mask = layout::contiguous(layout::expand(cond, shape));
    const bool* keep_a = mask.data_ptr<bool>();
    const std::int64_t n = out.numel();
    // Elements as unsigned integers of their width: a copy of the bits, whatever the dtype.
    auto copy_unkept = [&](auto element) {
        using Bits = decltype(element);
        auto* dst = static_cast<Bits*>(out.data_ptr());
        const auto* src = static_cast<const Bits*>(from_b.data_ptr());
        for (std::int64_t i = 0; i < n; ++i)
            if (!keep_a[i]) dst[i] = src[i];
    };
    switch (out.element_size()) {
        case 1: copy_unkept(std::uint8_t{}); break;
        case 2: copy_unkept(std::uint16_t{}); break;
        case 4: copy_unkept(std::uint32_t{}); break;
        case 8: copy_unkept(std::uint64_t{}); break;
        default: TINYAMP_FAIL(dtype, "where: no copy for elements of ", out.element_size(), " bytes");
    }
    return out;
}

struct WhereOp {
    static constexpr const char* name = "where";
    static Tensor forward(Context& ctx, const Tensor& cond, const Tensor& a, const Tensor& b)
    {
        TINYAMP_CHECK(cond.dtype() == DType::boolean, dtype, "where(cond, a, b) needs a bool condition, got ", dtype_name(cond.dtype()),
                      "; build one with a comparison such as gt(x, 0.0)");
        const Device device = op_device(name, {cond, a, b});
        ctx.save_for_backward({cond});
        ctx.save("a_shape", a.shape());
        ctx.save("b_shape", b.shape());
        // Only a choice, no arithmetic: two bool tensors give a bool result, as in PyTorch.
        return select(cond, a, b, result_type(a, b), device);
    }
    static std::vector<Tensor> backward(Context& ctx, const Tensor& grad)
    {
        const Tensor& cond = ctx.saved_tensors()[0];
        const Tensor zero = zeros_like(grad);
        return {Tensor(), ctx.needs_input_grad(1) ? sum_to(where(cond, grad, zero), ctx.get<Shape>("a_shape")) : Tensor(),
                ctx.needs_input_grad(2) ? sum_to(where(cond, zero, grad), ctx.get<Shape>("b_shape")) : Tensor()};
    }
};

struct MaskedFillOp {
    static constexpr const char* name = "masked_fill";
    static Tensor forward(Context& ctx, const Tensor& x, const Tensor& mask, double value)
    {
        TINYAMP_CHECK(mask.dtype() == DType::boolean, dtype, "masked_fill(x, mask, value) needs a bool mask, got ", dtype_name(mask.dtype()),
                      "; build one with a comparison such as gt(x, 0.0), or a causal one with triu(ones({T, T}, boolean), 1)");
        TINYAMP_CHECK(is_floating_point(x.dtype()) || std::isfinite(value), value, "masked_fill: the value ", value,
                      " has no value in x's dtype ", dtype_name(x.dtype()), "; convert x with .to(f32) first");
        const Device device = op_device(name, {x, mask});
        ctx.save_for_backward({mask});
        ctx.save("x_shape", x.shape());
        // The value rounded once to x's dtype, as PyTorch's fill (-inf stays -inf in f16 and bf16).
        return select(mask, scalar_tensor(value, x.dtype()), x, x.dtype(), device);
    }
    static std::vector<Tensor> backward(Context& ctx, const Tensor& grad)
    {
        // The filled elements do not depend on x: their gradient is 0.
        return {sum_to(masked_fill(grad, ctx.saved_tensors()[0], 0.0), ctx.get<Shape>("x_shape")), Tensor()};
    }
};

// Comparisons have no backward, so the autograd layer never records them.
template <class Compare, const char* Name>
struct CompareOp {
    static constexpr const char* name = Name;
    static Tensor forward(Context&, const Tensor& a, const Tensor& b) { return compare(name, a, b, Compare{}); }
};
constexpr char kEq[] = "eq", kNe[] = "ne", kLt[] = "lt", kLe[] = "le", kGt[] = "gt", kGe[] = "ge";
using EqOp = CompareOp<std::equal_to<>, kEq>;
using NeOp = CompareOp<std::not_equal_to<>, kNe>;
using LtOp = CompareOp<std::less<>, kLt>;
using LeOp = CompareOp<std::less_equal<>, kLe>;
using GtOp = CompareOp<std::greater<>, kGt>;
using GeOp = CompareOp<std::greater_equal<>, kGe>;

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
Tensor exp(const Tensor& x) { return dispatch<ExpOp>(x); }
Tensor log(const Tensor& x) { return dispatch<LogOp>(x); }
Tensor sqrt(const Tensor& x) { return dispatch<SqrtOp>(x); }
Tensor tanh(const Tensor& x) { return dispatch<TanhOp>(x); }
Tensor sigmoid(const Tensor& x) { return dispatch<SigmoidOp>(x); }
Tensor erf(const Tensor& x) { return dispatch<ErfOp>(x); }
Tensor relu(const Tensor& x) { return dispatch<ReluOp>(x); }
Tensor gelu(const Tensor& x) { return dispatch<GeluOp>(x); }
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) { return dispatch<WhereOp>(cond, a, b); }
Tensor where(const Tensor& cond, const Tensor& a, double b) { return dispatch<WhereOp>(cond, a, scalar_like(b, a)); }
Tensor where(const Tensor& cond, double a, const Tensor& b) { return dispatch<WhereOp>(cond, scalar_like(a, b), b); }
Tensor masked_fill(const Tensor& x, const Tensor& mask, double value) { return dispatch<MaskedFillOp>(x, mask, value); }
Tensor eq(const Tensor& a, const Tensor& b) { return dispatch<EqOp>(a, b); }
Tensor ne(const Tensor& a, const Tensor& b) { return dispatch<NeOp>(a, b); }
Tensor lt(const Tensor& a, const Tensor& b) { return dispatch<LtOp>(a, b); }
Tensor le(const Tensor& a, const Tensor& b) { return dispatch<LeOp>(a, b); }
Tensor gt(const Tensor& a, const Tensor& b) { return dispatch<GtOp>(a, b); }
Tensor ge(const Tensor& a, const Tensor& b) { return dispatch<GeOp>(a, b); }
Tensor eq(const Tensor& a, double b) { return eq(a, scalar_like(b, a)); }
Tensor ne(const Tensor& a, double b) { return ne(a, scalar_like(b, a)); }
Tensor lt(const Tensor& a, double b) { return lt(a, scalar_like(b, a)); }
Tensor le(const Tensor& a, double b) { return le(a, scalar_like(b, a)); }
Tensor gt(const Tensor& a, double b) { return gt(a, scalar_like(b, a)); }
Tensor ge(const Tensor& a, double b) { return ge(a, scalar_like(b, a)); }

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
