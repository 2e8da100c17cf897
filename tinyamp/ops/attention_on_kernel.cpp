// attention_on_kernel.h: the tensors around the CPU attention kernel.
#include "tinyamp/ops/attention_on_kernel.h"

#include <algorithm>
#include <numeric>

#include "kernels/cpu/attention_kernel.h"
#include "tinyamp/ops/matmul.h"  // batch_dims
#include "tinyamp/tensor/factories.h"
#include "tinyamp/tensor/layout.h"

namespace tinyamp::detail {
namespace {

// A tensor [..., rows, cols] as the kernel reads it: each problem's offset (the batch dims in
// row-major order) and the row stride. A tensor whose elements are not one after another in its
// last dim is copied first. An offset per problem, not matmul's as_stack (one batch stride):
// a GPT's heads, qkv.view(B, T, H, D).transpose(1, 2), have batch dims [B, H] with strides
// [T * 3C, D] that merge into no single stride, so as_stack would copy them.
struct StackedRows {
    Tensor tensor;
    std::vector<std::int64_t> offsets;
    std::int64_t row_stride = 0;
};

StackedRows stacked_rows(const Tensor& t)
{
    StackedRows r{t.size(-1) > 1 && t.stride(-1) != 1 ? layout::contiguous(t) : t, {}, 0};
    const Shape batch = batch_dims(r.tensor);
    r.offsets.assign(std::size_t(numel(batch)), 0);
    for (std::size_t b = 0; b < r.offsets.size(); ++b) {
        std::int64_t rest = std::int64_t(b), offset = 0;
        for (std::size_t d = batch.size(); d-- > 0;) {
            offset += (rest % batch[d]) * r.tensor.stride(std::int64_t(d));
            rest /= batch[d];
        }
        r.offsets[b] = offset;
    }
    r.row_stride = r.tensor.stride(-2);
    return r;
}

template <class T>
kernels::cpu::AttentionRows<const T> rows_in(const StackedRows& r)
{
    return {r.tensor.data_ptr<T>(), r.offsets.data(), r.row_stride};
}
template <class T>
kernels::cpu::AttentionRows<T> rows_out(const StackedRows& r)
{
    return {r.tensor.data_ptr<T>(), r.offsets.data(), r.row_stride};
}

// A new tensor of `shape` whose dims lie in memory in the order of `like`'s strides (largest
// first), as PyTorch's empty_like keeps a layout: for a transposed view of heads, the heads stay
// transposed. When `like`'s last dim would not stay innermost, plainly contiguous.
Tensor empty_in_order_of(const Shape& shape, const Tensor& like, DType dtype)
{
    const auto n = std::size_t(like.dim());
    std::vector<std::int64_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) { return like.stride(a) > like.stride(b); });
    if (order.back() != std::int64_t(n) - 1) return empty(shape, dtype);
    Shape permuted;
    std::vector<std::int64_t> inverse(n);
    for (std::size_t i = 0; i < n; ++i) {
        permuted.push_back(shape[std::size_t(order[i])]);
        inverse[std::size_t(order[i])] = std::int64_t(i);
    }
    return layout::permute(empty(permuted, dtype), inverse);
}

kernels::cpu::AttentionSizes sizes_of(const Tensor& q, const Tensor& k, const Tensor& v)
{
    return {numel(batch_dims(q)), q.size(-2), k.size(-2), q.size(-1), v.size(-1)};
}

// Calls fn(T{}) for the dtype the kernel runs in: f32, bf16 or f16.
template <class Fn>
void visit_kernel_dtype(DType dtype, Fn&& fn)
{
    if (dtype == DType::bf16) return fn(BFloat16{});
    if (dtype == DType::f16) return fn(Half{});
    fn(float{});
}

}  // namespace

bool attention_kernel_applies(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask)
{
    const DType d = q.dtype();
    return (d == DType::f32 || d == DType::bf16 || d == DType::f16) && k.dtype() == d && v.dtype() == d && !mask.defined() &&
           q.device().is_cpu() && k.size(-2) > 0 && batch_dims(q) == batch_dims(k) && batch_dims(q) == batch_dims(v);
}

std::pair<Tensor, Tensor> attention_kernel_forward(const Tensor& q, const Tensor& k, const Tensor& v, double scale, bool is_causal)
{
    const StackedRows qr = stacked_rows(q), kr = stacked_rows(k), vr = stacked_rows(v);
    Shape out_shape = q.shape(), lse_shape = batch_dims(q);
    out_shape.back() = v.size(-1);
    lse_shape.push_back(q.size(-2));
    const StackedRows out = stacked_rows(empty_in_order_of(out_shape, q, q.dtype()));
    Tensor lse = empty(lse_shape, DType::f32);
    visit_kernel_dtype(q.dtype(), [&](auto tag) {
        using T = decltype(tag);
        kernels::cpu::attention_forward<T>(sizes_of(q, k, v), rows_in<T>(qr), rows_in<T>(kr), rows_in<T>(vr), float(scale), is_causal,
                                           rows_out<T>(out), lse.data_ptr<float>());
    });
    return {out.tensor, lse};
}

std::vector<Tensor> attention_kernel_backward(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& lse, const Tensor& grad,
                                              double scale, bool is_causal)
{
    // The kernel takes one dtype: a gradient in another one (not the output's) sends all four
    // through f32, exactly.
    const bool same = grad.dtype() == q.dtype();
    const auto in_kernel_dtype = [same](const Tensor& t) { return same ? t : layout::convert(t, DType::f32); };
    const StackedRows qr = stacked_rows(in_kernel_dtype(q)), kr = stacked_rows(in_kernel_dtype(k)), vr = stacked_rows(in_kernel_dtype(v)),
                      gr = stacked_rows(in_kernel_dtype(grad));
    const DType d = qr.tensor.dtype();
    const StackedRows dq = stacked_rows(empty_in_order_of(q.shape(), q, d)), dk = stacked_rows(empty_in_order_of(k.shape(), k, d)),
                      dv = stacked_rows(empty_in_order_of(v.shape(), v, d));
    const Tensor lse_rows = layout::contiguous(lse);
    visit_kernel_dtype(d, [&](auto tag) {
        using T = decltype(tag);
        kernels::cpu::attention_backward<T>(sizes_of(q, k, v), rows_in<T>(qr), rows_in<T>(kr), rows_in<T>(vr), rows_in<T>(gr),
                                            lse_rows.data_ptr<float>(), float(scale), is_causal, rows_out<T>(dq), rows_out<T>(dk),
                                            rows_out<T>(dv));
    });
    return {layout::convert(dq.tensor, q.dtype()), layout::convert(dk.tensor, k.dtype()), layout::convert(dv.tensor, v.dtype())};
}

}  // namespace tinyamp::detail
