#include "tinyamp/ops/cuda_forward.h"

#include <cstring>
#include <limits>

#include "kernels/cuda/elementwise_cuda.h"
#include "kernels/cuda/gemm_cuda.h"
#include "kernels/cuda/loss_cuda.h"
#include "kernels/cuda/reduce_cuda.h"
#include "tinyamp/tensor/factories.h"
#include "tinyamp/tensor/layout.h"
#include "tinyamp/ops/matmul.h"

namespace tinyamp::cuda_forward {
namespace {

using kernels::BinaryOp;
using kernels::cuda::BroadcastLayout;
using kernels::UnaryOp;

// `t` in `dtype` on `device`: a 0-D CPU scalar is converted on the host, then copied over.
Tensor ready(const Tensor& t, DType dtype, Device device)
{
    return layout::convert(layout::to_device(t.device() == device ? t : layout::convert(t, dtype), device), dtype);
}

// The broadcast layout of `operands`, each already expanded to `shape`.
BroadcastLayout broadcast_layout(const Shape& shape, std::initializer_list<const Tensor*> operands)
{
    TINYAMP_CHECK(std::int64_t(shape.size()) <= kernels::cuda::kMaxDims, shape, "CUDA elementwise ops support up to ", kernels::cuda::kMaxDims,
                  " dimensions, got shape ", shape_str(shape), "; reshape to fewer dimensions first");
    BroadcastLayout l;
    l.ndim = int(shape.size());
    for (std::size_t d = 0; d < shape.size(); ++d) l.shape[d] = shape[d];
    int k = 0;
    for (const Tensor* t : operands) {
        for (std::size_t d = 0; d < shape.size(); ++d) l.strides[k][d] = t->strides()[d];
        ++k;
    }
    return l;
}

// A stack [count, R, C] as cuBLAS can read it: rows contiguous (ld = row stride) or, for a
// transposed view, columns contiguous (read as the transpose); any other layout is copied.
struct Operand {
    Tensor stack;
    kernels::cuda::Transpose trans;
    std::int64_t ld;
};

Operand operand(const Tensor& stack)
{
    const std::int64_t rows = stack.size(1), cols = stack.size(2);
    if (stack.stride(2) == 1 && stack.stride(1) >= std::max<std::int64_t>(1, cols)) return {stack, kernels::cuda::Transpose::no, stack.stride(1)};
    if (stack.stride(1) == 1 && stack.stride(2) >= std::max<std::int64_t>(1, rows)) return {stack, kernels::cuda::Transpose::yes, stack.stride(2)};
    const Tensor copy = layout::contiguous(stack);
    return {copy, kernels::cuda::Transpose::no, std::max<std::int64_t>(1, cols)};
}

DType compute_dtype(DType dtype) { return dtype == DType::f64 ? DType::f64 : DType::f32; }

// The per-sample (or per-element) losses `losses` ([count], compute dtype) reduced as asked and
// rounded once into `dtype`; a mean of nothing is NaN, as on the CPU.
Tensor reduce_losses(const Tensor& losses, const Shape& shape, DType dtype, Reduction reduction, std::int64_t count)
{
    if (reduction == Reduction::none) return layout::reshape(layout::convert(losses, dtype), shape);
    Tensor out = empty({}, dtype, losses.device());
    const double scale = reduction == Reduction::sum ? 1.0 : count > 0 ? 1.0 / double(count) : std::numeric_limits<double>::quiet_NaN();
    kernels::cuda::sum_rows(losses.data_ptr(), losses.dtype(), 1, losses.numel(), out.data_ptr(), dtype, scale, losses.device().index());
    return out;
}

}  // namespace

Tensor binary(kernels::BinaryOp kind, const Tensor& a, const Tensor& b, DType dtype, Device device)
{
    const Shape shape = broadcast_shapes(a.shape(), b.shape());
    const Tensor ca = layout::expand(ready(a, dtype, device), shape);
    const Tensor cb = layout::expand(ready(b, dtype, device), shape);
    Tensor out = empty(shape, kernels::is_comparison(kind) ? DType::boolean : dtype, device);
    kernels::cuda::binary(kind, dtype, ca.data_ptr(), cb.data_ptr(), broadcast_layout(shape, {&ca, &cb}), out.data_ptr(), device.index());
    return out;
}

Tensor unary(kernels::UnaryOp kind, const Tensor& x, DType dtype, double param)
{
    const Tensor cx = layout::contiguous(layout::convert(x, dtype));
    Tensor out = empty(x.shape(), dtype, x.device());
    kernels::cuda::unary(kind, dtype, cx.data_ptr(), out.data_ptr(), cx.numel(), param, x.device().index());
    return out;
}

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b, DType dtype, Device device)
{
    const Shape shape = broadcast_shapes(cond.shape(), broadcast_shapes(a.shape(), b.shape()));
    const Tensor cc = layout::expand(ready(cond, DType::boolean, device), shape);
    const Tensor ca = layout::expand(ready(a, dtype, device), shape);
    const Tensor cb = layout::expand(ready(b, dtype, device), shape);
    Tensor out = empty(shape, dtype, device);
    kernels::cuda::where(static_cast<const bool*>(cc.data_ptr()), ca.data_ptr(), cb.data_ptr(), dtype, broadcast_layout(shape, {&cc, &ca, &cb}),
                         out.data_ptr(), device.index());
    return out;
}

void gemm_into(const Tensor& a, const Tensor& b, const Tensor& out, double alpha, double beta)
{
    if (out.numel() == 0) return;
    const int device = out.device().index();
    const Shape batch(out.shape().begin(), out.shape().end() - 2);
    const std::int64_t count = numel(batch), m = a.size(-2), k = a.size(-1), n = b.size(-1);
    if (k == 0) {  // an empty sum: out = beta * out (0 when beta is 0, whatever out held)
        if (beta == 0.0) kernels::cuda::fill(out.data_ptr(), out.dtype(), out.numel(), 0.0, device);
        else layout::copy_into(out, binary(BinaryOp::mul, out, scalar_tensor(beta, out.dtype()), out.dtype(), out.device()));
        return;
    }
    const Operand A = operand(detail::as_stack(a, batch)), B = operand(detail::as_stack(b, batch));
    kernels::cuda::gemm(out.dtype(), A.trans, B.trans, m, n, k, alpha, A.stack.data_ptr(), A.ld, count == 1 ? 0 : A.stack.stride(0),
                        B.stack.data_ptr(), B.ld, count == 1 ? 0 : B.stack.stride(0), beta, out.data_ptr(), n, m * n, count, device);
}

Tensor class_loss(bool log_probs_given, const Tensor& rows, const Tensor& labels, const Shape& loss_shape, Reduction reduction,
                  std::int64_t ignore_index, std::int64_t kept)
{
    const std::int64_t n = rows.size(0), classes = rows.size(1);
    const Tensor losses = empty({n}, compute_dtype(rows.dtype()), rows.device());
    const auto* l = static_cast<const std::int64_t*>(labels.data_ptr());
    if (log_probs_given)
        kernels::cuda::nll_rows(rows.data_ptr(), rows.dtype(), n, classes, l, ignore_index, losses.data_ptr(), rows.device().index());
    else
        kernels::cuda::cross_entropy_rows(rows.data_ptr(), rows.dtype(), n, classes, l, ignore_index, losses.data_ptr(), rows.device().index());
    return reduce_losses(losses, loss_shape, rows.dtype(), reduction, kept);
}

Tensor mse_loss(const Tensor& input, const Tensor& target, DType dtype, Reduction reduction)
{
    const DType ct = compute_dtype(dtype);
    const Tensor diff = binary(BinaryOp::sub, layout::convert(input, ct), layout::convert(target, ct), ct, input.device());
    const Tensor squares = layout::contiguous(binary(BinaryOp::mul, diff, diff, ct, input.device()));
    return reduce_losses(layout::reshape(squares, {squares.numel()}), input.shape(), dtype, reduction, input.numel());
}

void target_masks(const Tensor& labels, std::int64_t classes, std::int64_t ignore_index, double weight, const Tensor& onehot,
                  const Tensor& row_weight)
{
    const Tensor l = layout::contiguous(labels);
    kernels::cuda::target_masks(static_cast<const std::int64_t*>(l.data_ptr()), l.numel(), classes, ignore_index, weight, onehot.dtype(),
                                onehot.data_ptr(), row_weight.data_ptr(), labels.device().index());
}

}  // namespace tinyamp::cuda_forward
