#pragma once
/// \file
/// How the elementwise ops compute their forward (namespace tinyamp::detail, not user API): the
/// helpers shared by elementwise_arithmetic.cpp, elementwise_math.cpp and elementwise_compare.cpp.
///
/// Each helper takes the op's function as a template argument and runs it over every element,
/// once per dtype the op accepts, with the loops of kernels/cpu/elementwise_loops.h; CUDA tensors go to
/// cuda_forward instead, with the op's kind (kernels/elementwise_ops.h). Those instantiations are most of the ops' compile time, which is why the
/// ops are in three files (one family each) that compile in parallel.

#include <cstdint>

#include "kernels/cpu/elementwise_loops.h"
#include "tinyamp/tensor/factories.h"
#include "tinyamp/tensor/layout.h"
#include "tinyamp/tensor/tensor.h"
#include "tinyamp/ops/cuda_forward.h"
#include "tinyamp/ops/type_promotion.h"

namespace tinyamp::detail {

// Calls fn(T{}) for the dtypes arithmetic runs in: the floats and i64.
template <class Fn>
void visit_arithmetic(DType dtype, Fn&& fn)
{
    if (dtype == DType::i64) return fn(std::int64_t{});
    visit_float_dtype(dtype, fn);
}

inline DType arithmetic_dtype(const char* op, const Tensor& a, const Tensor& b)
{
    const DType d = result_type(a, b);
    TINYAMP_CHECK(d != DType::boolean, dtype, op, " of two bool tensors is not arithmetic; convert one with .to(i64) or .to(f32) first");
    return d;
}

// `t` read as `shape`: itself when it has that shape already (no view to make), else a broadcast view.
inline Tensor broadcast_to(const Tensor& t, const Shape& shape) { return t.shape() == shape ? t : layout::expand(t, shape); }

// out = fn(a, b) over the broadcast shape, computed in `dtype` (also the result's dtype): fn on
// the CPU, the CUDA kernel of `kind` for CUDA tensors. `op` names the op in errors.
template <class Fn>
Tensor binary(const char* op, kernels::BinaryOp kind, const Tensor& a, const Tensor& b, DType dtype, Fn fn)
{
    const Device device = op_device(op, {a, b});
    if (device.is_cuda()) return cuda_forward::binary(kind, a, b, dtype, device);
    const Shape shape = broadcast_shapes(a.shape(), b.shape());
    const Tensor ca = broadcast_to(layout::convert(a, dtype), shape);
    const Tensor cb = broadcast_to(layout::convert(b, dtype), shape);
    Tensor out = empty(shape, dtype);
    visit_arithmetic(dtype, [&](auto tag) {
        using T = decltype(tag);
        kernels::cpu::binary_map(shape, ca.data_ptr<T>(), ca.strides(), cb.data_ptr<T>(), cb.strides(), out.data_ptr<T>(), fn);
    });
    return out;
}

// y = fn(x) in x's float dtype (integers are computed in f32): fn on the CPU, the CUDA kernel of
// `kind` for CUDA tensors.
template <class Fn>
Tensor unary_float(const char* op, kernels::UnaryOp kind, const Tensor& x, Fn fn)
{
    const DType dtype = float_result_type(x.dtype());
    if (op_device(op, {x}).is_cuda()) return cuda_forward::unary(kind, x, dtype);
    const Tensor cx = layout::contiguous(layout::convert(x, dtype));
    Tensor out = empty(x.shape(), dtype);
    visit_float_dtype(dtype, [&](auto tag) {
        using T = decltype(tag);
        kernels::cpu::unary_map(cx.data_ptr<T>(), out.data_ptr<T>(), cx.numel(), fn);
    });
    return out;
}

}  // namespace tinyamp::detail
