// Elementwise ops, choices and comparisons: where, masked_fill, eq, ne, lt, le, gt and ge. Each
// op is a Function (where's and masked_fill's backward is written with other ops, so it runs in
// the dtypes the forward ran in; the comparisons have none) plus the public function that hands
// it to the dispatcher; the helpers shared with elementwise_arithmetic.cpp and
// elementwise_math.cpp are in elementwise_forward.h.
#include "tinyamp/ops/elementwise.h"

#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include "kernels/cpu/elementwise_loops.h"
#include "tinyamp/tensor/factories.h"
#include "tinyamp/tensor/layout.h"
#include "tinyamp/dispatch/dispatch.h"
#include "tinyamp/ops/cuda_forward.h"
#include "tinyamp/ops/elementwise_forward.h"
#include "tinyamp/ops/reduce.h"
#include "tinyamp/ops/type_promotion.h"

namespace tinyamp {
namespace {

using detail::broadcast_to;
using kernels::cpu::binary_map;

// Comparisons: both sides in their common dtype, a bool result.
template <class Fn>
Tensor compare(const char* op, kernels::BinaryOp kind, const Tensor& a, const Tensor& b, Fn fn)
{
    const Device device = op_device(op, {a, b});
    const DType dtype = result_type(a, b);
    if (device.is_cuda()) return cuda_forward::binary(kind, a, b, dtype, device);
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
    struct Saved {
        Shape a_shape, b_shape;
    };
    static Tensor forward(ContextWith<Saved>& ctx, const Tensor& cond, const Tensor& a, const Tensor& b)
    {
        TINYAMP_CHECK(cond.dtype() == DType::boolean, dtype, "where(cond, a, b) needs a bool condition, got ", dtype_name(cond.dtype()),
                      "; build one with a comparison such as gt(x, 0.0)");
        const Device device = op_device(name, {cond, a, b});
        ctx.save_for_backward({cond});
        ctx.saved = {a.shape(), b.shape()};
        // Only a choice, no arithmetic: two bool tensors give a bool result, as in PyTorch.
        return select(cond, a, b, result_type(a, b), device);
    }
    static std::vector<Tensor> backward(ContextWith<Saved>& ctx, const Tensor& grad)
    {
        const Tensor& cond = ctx.saved_tensors()[0];
        const Tensor zero = zeros_like(grad);
        return {Tensor(), ctx.needs_input_grad(1) ? sum_to(where(cond, grad, zero), ctx.saved.a_shape) : Tensor(),
                ctx.needs_input_grad(2) ? sum_to(where(cond, zero, grad), ctx.saved.b_shape) : Tensor()};
    }
};

struct MaskedFillOp {
    static constexpr const char* name = "masked_fill";
    struct Saved {
        Shape x_shape;
    };
    static Tensor forward(ContextWith<Saved>& ctx, const Tensor& x, const Tensor& mask, double value)
    {
        TINYAMP_CHECK(mask.dtype() == DType::boolean, dtype, "masked_fill(x, mask, value) needs a bool mask, got ", dtype_name(mask.dtype()),
                      "; build one with a comparison such as gt(x, 0.0), or a causal one with triu(ones({T, T}, boolean), 1)");
        TINYAMP_CHECK(is_floating_point(x.dtype()) || std::isfinite(value), value, "masked_fill: the value ", value,
                      " has no value in x's dtype ", dtype_name(x.dtype()), "; convert x with .to(f32) first");
        const Device device = op_device(name, {x, mask});
        ctx.save_for_backward({mask});
        ctx.saved.x_shape = x.shape();
        // The value rounded once to x's dtype, as PyTorch's fill (-inf stays -inf in f16 and bf16).
        return select(mask, scalar_tensor(value, x.dtype()), x, x.dtype(), device);
    }
    static std::vector<Tensor> backward(ContextWith<Saved>& ctx, const Tensor& grad)
    {
        // The filled elements do not depend on x: their gradient is 0.
        return {sum_to(masked_fill(grad, ctx.saved_tensors()[0], 0.0), ctx.saved.x_shape), Tensor()};
    }
};

// Comparisons have no backward, so the autograd layer never records them.
template <kernels::BinaryOp Kind, class Compare, const char* Name>
struct CompareOp {
    static constexpr const char* name = Name;
    static Tensor forward(Context&, const Tensor& a, const Tensor& b) { return compare(name, Kind, a, b, Compare{}); }
};
using kernels::BinaryOp;
constexpr char kEq[] = "eq", kNe[] = "ne", kLt[] = "lt", kLe[] = "le", kGt[] = "gt", kGe[] = "ge";
using EqOp = CompareOp<BinaryOp::eq, std::equal_to<>, kEq>;
using NeOp = CompareOp<BinaryOp::ne, std::not_equal_to<>, kNe>;
using LtOp = CompareOp<BinaryOp::lt, std::less<>, kLt>;
using LeOp = CompareOp<BinaryOp::le, std::less_equal<>, kLe>;
using GtOp = CompareOp<BinaryOp::gt, std::greater<>, kGt>;
using GeOp = CompareOp<BinaryOp::ge, std::greater_equal<>, kGe>;

}  // namespace

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

}  // namespace tinyamp
