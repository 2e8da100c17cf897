// Matrix products. Each public function is its own op, so each shows up as one node under its own
// name (autocast policies and graph pictures refer to matmul, mm, bmm, addmm and linear). All of
// them compute through gemm_into, which hands every matrix of a (broadcast) stack to the GEMM
// kernel (its fastest tier for this CPU) and reads transposed views in place. Backward formulas
// use dispatched ops (mm, matmul, transpose, sum_to): they run in the forward's dtype and can be
// differentiated again.
#include "tinyamp/ops/matmul.h"

#include <algorithm>
#include <string>
#include <type_traits>

#include "kernels/cpu/gemm.h"
#include "tinyamp/tensor/factories.h"
#include "tinyamp/tensor/layout.h"
#include "tinyamp/dispatch/dispatch.h"
#include "tinyamp/ops/cuda_forward.h"
#include "tinyamp/ops/elementwise.h"
#include "tinyamp/ops/reduce.h"
#include "tinyamp/ops/type_promotion.h"

namespace tinyamp {
namespace {

using kernels::cpu::Transpose;

// ---------------------------------------------------------------- shapes

// The number of rows x has when its last dim is taken as the columns: the product of the others.
std::int64_t leading_size(const Tensor& x) { return numel(Shape(x.shape().begin(), x.shape().end() - 1)); }

// Whether `from` broadcasts to `to` (aligned at the right, each size equal or 1).
bool broadcasts_to(const Shape& from, const Shape& to)
{
    if (from.size() > to.size()) return false;
    for (std::size_t i = 1; i <= from.size(); ++i)
        if (from[from.size() - i] != 1 && from[from.size() - i] != to[to.size() - i]) return false;
    return true;
}

// The inner sizes must agree: a's last dim, and b's only dim (1-D) or second to last.
void check_inner(const char* op, const Tensor& a, const Tensor& b)
{
    const std::int64_t k_a = a.size(-1), k_b = b.dim() == 1 ? b.size(0) : b.size(-2);
    TINYAMP_CHECK(k_a == k_b, shape, op, ": shapes ", shape_str(a.shape()), " and ", shape_str(b.shape()), " cannot be multiplied (the ",
                  k_a, a.dim() == 1 ? " elements" : " columns", " of the first must equal the ", k_b, b.dim() == 1 ? " elements" : " rows",
                  " of the second)");
}

// a [..., M, K] · b [..., K, N]: the broadcast batch dims, then [M, N].
Shape product_shape(const Tensor& a, const Tensor& b)
{
    Shape shape = broadcast_shapes(detail::batch_dims(a), detail::batch_dims(b));
    shape.push_back(a.size(-2));
    shape.push_back(b.size(-1));
    return shape;
}

// ---------------------------------------------------------------- calling the kernel

// How the kernel reads each [R, C] matrix of a stack: row-major with leading dim stride(1), or,
// for a transposed view (columns contiguous instead of rows), as the transpose of a row-major
// [C, R] with leading dim stride(2). Any other layout is copied first.
struct GemmOperand {
    Tensor data;
    Transpose trans;
    std::int64_t ld;
    std::int64_t batch_stride;  ///< elements from one matrix of the stack to the next
};

GemmOperand gemm_operand(const Tensor& stack)
{
    if (stack.stride(2) == 1) return {stack, Transpose::no, stack.stride(1), stack.stride(0)};
    if (stack.stride(1) == 1) return {stack, Transpose::yes, stack.stride(2), stack.stride(0)};
    const Tensor copy = layout::contiguous(stack);
    return {copy, Transpose::no, copy.stride(1), copy.stride(0)};
}

// The same for one [R, C] matrix, read in place without making a stack view: Linear and mm on
// small tensors spend more on building views than on the product.
GemmOperand matrix_operand(const Tensor& matrix)
{
    if (matrix.stride(1) == 1) return {matrix, Transpose::no, matrix.stride(0), 0};
    if (matrix.stride(0) == 1) return {matrix, Transpose::yes, matrix.stride(1), 0};
    const Tensor copy = layout::contiguous(matrix);
    return {copy, Transpose::no, copy.size(1), 0};
}

// matrix_operand(layout::t(matrix)) without making the view: the same operand, the same checks in
// the same order (Linear reads its weight this way on every call).
GemmOperand transposed_matrix_operand(const Tensor& matrix)
{
    if (matrix.stride(0) == 1) return {matrix, Transpose::no, matrix.stride(1), 0};
    if (matrix.stride(1) == 1) return {matrix, Transpose::yes, matrix.stride(0), 0};
    return matrix_operand(layout::t(matrix));
}

}  // namespace

namespace detail {

Shape batch_dims(const Tensor& m) { return Shape(m.shape().begin(), m.shape().end() - 2); }

Tensor as_stack(const Tensor& m, const Shape& batch)
{
    Shape full = batch;
    full.push_back(m.size(-2));
    full.push_back(m.size(-1));
    return layout::reshape(layout::expand(m, full), {numel(batch), m.size(-2), m.size(-1)});
}

void check_same_float_dtype(const char* op, const char* operands, std::initializer_list<Tensor> tensors)
{
    // The common case first, without building anything: one floating dtype for all.
    const Tensor* first = nullptr;
    bool same = true;
    for (const Tensor& t : tensors) {
        if (!t.defined()) continue;
        if (!first) first = &t;
        same = same && t.dtype() == first->dtype();
    }
    if (same && (!first || is_floating_point(first->dtype()))) return;
    std::vector<DType> dtypes, distinct;
    for (const Tensor& t : tensors) {
        if (!t.defined()) continue;
        dtypes.push_back(t.dtype());
        if (std::find(distinct.begin(), distinct.end(), t.dtype()) == distinct.end()) distinct.push_back(t.dtype());
    }
    if (distinct.size() > 1) {
        std::string got, convert;
        for (std::size_t i = 0; i < dtypes.size(); ++i)
            got += (i == 0 ? "" : i + 1 == dtypes.size() ? " and " : ", ") + std::string(dtype_name(dtypes[i]));
        for (std::size_t i = 0; i < distinct.size(); ++i)
            convert += (i == 0 ? "" : " or ") + std::string(".to(") + dtype_name(distinct[i]) + ")";
        TINYAMP_FAIL(dtype, op, ": ", operands, " must have the same dtype, but got ", got, " (", op,
                     " does not promote dtypes, as in PyTorch); convert with ", convert,
                     " so they match, or run the op under amp::autocast, which casts them to the dtype its policy picks");
    }
    TINYAMP_CHECK(distinct.empty() || is_floating_point(distinct[0]), dtype, op,
                  " is defined for floating point tensors (f64, f32, f16, bf16) only, but got ", dtype_name(distinct[0]),
                  "; convert with .to(f32) first");
}

void gemm_into(const Tensor& a, const Tensor& b, const Tensor& out, double alpha, double beta)
{
    if (out.device().is_cuda()) return cuda_forward::gemm_into(a, b, out, alpha, beta);  // cuBLAS
    if (out.numel() == 0) return;
    const Shape batch(out.shape().begin(), out.shape().end() - 2);
    const std::int64_t count = numel(batch), m = a.size(-2), k = a.size(-1), n = b.size(-1);
    const bool plain = a.dim() == 2 && b.dim() == 2;  // one matrix each: no stacks needed
    const GemmOperand A = plain ? matrix_operand(a) : gemm_operand(detail::as_stack(a, batch));
    const GemmOperand B = plain ? matrix_operand(b) : gemm_operand(detail::as_stack(b, batch));
    visit_float_dtype(out.dtype(), [&](auto tag) {
        using T = decltype(tag);
        const T* pa = A.data.data_ptr<T>();
        const T* pb = B.data.data_ptr<T>();
        T* pc = out.data_ptr<T>();
        for (std::int64_t i = 0; i < count; ++i)
            kernels::cpu::gemm(A.trans, B.trans, m, n, k, alpha, pa + i * A.batch_stride, A.ld, pb + i * B.batch_stride, B.ld, beta,
                               pc + i * m * n, n);
    });
}

void gemm_bias_into(const Tensor& a, const Tensor& b, const Tensor& bias, BiasAcross along, const Tensor& out)
{
    if (!bias.defined()) return gemm_into(a, b, out);
    if (!out.device().is_cpu()) {
        // No bias epilogue there: the bias goes into out first and the GEMM adds to it with beta = 1
        // (the same single rounding).
        layout::copy_into(out, along == BiasAcross::each_row ? bias : layout::view(bias, {bias.numel(), 1}));
        return gemm_into(a, b, out, 1.0, 1.0);
    }
    if (out.numel() == 0) return;
    const std::int64_t m = a.size(0), k = a.size(1), n = b.size(1);
    const GemmOperand A = matrix_operand(a), B = matrix_operand(b);
    const Tensor bias_values = layout::contiguous(bias);
    const auto bias_along = along == BiasAcross::each_row ? kernels::cpu::BiasAlong::rows : kernels::cpu::BiasAlong::columns;
    visit_float_dtype(out.dtype(), [&](auto tag) {
        using T = decltype(tag);
        const kernels::cpu::GemmBias<T> epilogue{bias_values.data_ptr<T>(), bias_along};
        kernels::cpu::gemm(A.trans, B.trans, m, n, k, 1.0, A.data.data_ptr<T>(), A.ld, B.data.data_ptr<T>(), B.ld, 0.0, out.data_ptr<T>(),
                           n, epilogue);
    });
}

}  // namespace detail

namespace {

using detail::check_same_float_dtype;
using detail::gemm_into;

Tensor scaled(const Tensor& t, double factor) { return factor == 1.0 ? t : mul(t, factor); }

// ---------------------------------------------------------------- the ops

struct MatmulOp {
    static constexpr const char* name = "matmul";
    static Tensor forward(Context& ctx, const Tensor& a, const Tensor& b)
    {
        const Device device = op_device(name, {a, b});
        check_same_float_dtype(name, "both operands", {a, b});
        TINYAMP_CHECK(a.dim() >= 1 && b.dim() >= 1, shape, "matmul: both operands need at least 1 dimension, but got shapes ",
                      shape_str(a.shape()), " and ", shape_str(b.shape()), "; to scale by a 0-D tensor use mul");
        check_inner(name, a, b);
        const Tensor a2 = a.dim() == 1 ? layout::unsqueeze(a, 0) : a;  // a vector first is a row [1, K]
        const Tensor b2 = b.dim() == 1 ? layout::unsqueeze(b, 1) : b;  // a vector second is a column [K, 1]
        const Shape batch_a = detail::batch_dims(a2), batch_b = detail::batch_dims(b2);
        TINYAMP_CHECK(broadcastable(batch_a, batch_b), shape, "matmul: shapes ", shape_str(a.shape()), " and ", shape_str(b.shape()),
                      " cannot be multiplied: their batch dimensions ", shape_str(batch_a), " and ", shape_str(batch_b),
                      " do not broadcast (sizes must be equal, or one of them 1)");
        ctx.save_for_backward({a, b});
        Tensor out = empty(product_shape(a2, b2), a.dtype(), device);
        gemm_into(a2, b2, out);
        Shape shape = broadcast_shapes(batch_a, batch_b);  // then drop the dims the vectors gained
        if (a.dim() > 1) shape.push_back(a.size(-2));
        if (b.dim() > 1) shape.push_back(b.size(-1));
        return layout::view(out, shape);
    }
    static std::vector<Tensor> backward(Context& ctx, const Tensor& grad)
    {
        const Tensor& a = ctx.saved_tensors()[0];
        const Tensor& b = ctx.saved_tensors()[1];
        // In the 2-D+ forms forward multiplied: dA = dC · B^T and dB = A^T · dC, each summed over
        // the batch dims its operand was broadcast along.
        const Tensor a2 = a.dim() == 1 ? a.unsqueeze(0) : a;
        const Tensor b2 = b.dim() == 1 ? b.unsqueeze(1) : b;
        const Tensor g = grad.reshape(product_shape(a2, b2));
        Tensor grad_a, grad_b;
        if (ctx.needs_input_grad(0)) grad_a = sum_to(matmul(g, b2.transpose(-1, -2)), a2.shape()).reshape(a.shape());
        if (ctx.needs_input_grad(1)) {
            if (b2.dim() == 2 && a2.dim() > 2) {
                // b was shared by the whole batch: fold the batch into rows, so its gradient is one
                // product summed in the f32 accumulator and rounded once (as PyTorch's folding does).
                const std::int64_t rows = leading_size(a2);
                grad_b = mm(a2.reshape({rows, a2.size(-1)}).t(), g.reshape({rows, g.size(-1)}));
            } else {
                grad_b = sum_to(matmul(a2.transpose(-1, -2), g), b2.shape());
            }
            grad_b = grad_b.reshape(b.shape());
        }
        return {grad_a, grad_b};
    }
};

struct MmOp {
    static constexpr const char* name = "mm";
    static Tensor forward(Context& ctx, const Tensor& a, const Tensor& b)
    {
        const Device device = op_device(name, {a, b});
        check_same_float_dtype(name, "both operands", {a, b});
        TINYAMP_CHECK(a.dim() == 2 && b.dim() == 2, shape, "mm: expects two 2-D matrices, but got shapes ", shape_str(a.shape()), " and ",
                      shape_str(b.shape()), "; matmul also takes vectors and batches");
        check_inner(name, a, b);
        ctx.save_for_backward({a, b});
        Tensor out = empty({a.size(0), b.size(1)}, a.dtype(), device);
        gemm_into(a, b, out);
        return out;
    }
    static std::vector<Tensor> backward(Context& ctx, const Tensor& grad)
    {
        const Tensor& a = ctx.saved_tensors()[0];
        const Tensor& b = ctx.saved_tensors()[1];
        return {ctx.needs_input_grad(0) ? mm(grad, b.t()) : Tensor(), ctx.needs_input_grad(1) ? mm(a.t(), grad) : Tensor()};
    }
};

struct BmmOp {
    static constexpr const char* name = "bmm";
    static Tensor forward(Context& ctx, const Tensor& a, const Tensor& b)
    {
        const Device device = op_device(name, {a, b});
        check_same_float_dtype(name, "both operands", {a, b});
        TINYAMP_CHECK(a.dim() == 3 && b.dim() == 3, shape, "bmm: expects two 3-D stacks [batch, rows, cols], but got shapes ",
                      shape_str(a.shape()), " and ", shape_str(b.shape()), "; matmul also takes other ranks");
        TINYAMP_CHECK(a.size(0) == b.size(0), shape, "bmm: shapes ", shape_str(a.shape()), " and ", shape_str(b.shape()),
                      " have different batch sizes ", a.size(0), " and ", b.size(0), " (bmm does not broadcast; matmul does)");
        check_inner(name, a, b);
        ctx.save_for_backward({a, b});
        Tensor out = empty({a.size(0), a.size(1), b.size(2)}, a.dtype(), device);
        gemm_into(a, b, out);
        return out;
    }
    static std::vector<Tensor> backward(Context& ctx, const Tensor& grad)
    {
        const Tensor& a = ctx.saved_tensors()[0];
        const Tensor& b = ctx.saved_tensors()[1];
        return {ctx.needs_input_grad(0) ? bmm(grad, b.transpose(1, 2)) : Tensor(),
                ctx.needs_input_grad(1) ? bmm(a.transpose(1, 2), grad) : Tensor()};
    }
};

struct AddmmOp {
    static constexpr const char* name = "addmm";
    struct Saved {
        Shape bias_shape;
        double beta = 1;
        double alpha = 1;
    };
    static Tensor forward(ContextWith<Saved>& ctx, const Tensor& bias, const Tensor& a, const Tensor& b, double beta, double alpha)
    {
        const Device device = op_device(name, {bias, a, b});
        check_same_float_dtype(name, "bias, a and b", {bias, a, b});
        TINYAMP_CHECK(a.dim() == 2 && b.dim() == 2, shape, "addmm: expects 2-D matrices a and b, but got shapes ", shape_str(a.shape()),
                      " and ", shape_str(b.shape()));
        check_inner(name, a, b);
        const Shape shape{a.size(0), b.size(1)};
        TINYAMP_CHECK(broadcasts_to(bias.shape(), shape), shape, "addmm: bias of shape ", shape_str(bias.shape()),
                      " cannot be broadcast to the shape of the product ", shape_str(shape), " (sizes must be equal, or 1)");
        ctx.save_for_backward({a, b});
        ctx.saved.bias_shape = bias.shape();
        ctx.saved.beta = beta;
        ctx.saved.alpha = alpha;
        // The bias goes into the output buffer first; the kernel adds alpha * a·b to beta * it and rounds once.
        Tensor out = beta == 0.0 ? empty(shape, a.dtype(), device) : layout::clone(layout::expand(layout::to_device(bias, device), shape));
        gemm_into(a, b, out, alpha, beta);
        return out;
    }
    static std::vector<Tensor> backward(ContextWith<Saved>& ctx, const Tensor& grad)
    {
        const Tensor& a = ctx.saved_tensors()[0];
        const Tensor& b = ctx.saved_tensors()[1];
        const double alpha = ctx.saved.alpha;
        return {ctx.needs_input_grad(0) ? sum_to(scaled(grad, ctx.saved.beta), ctx.saved.bias_shape) : Tensor(),
                ctx.needs_input_grad(1) ? scaled(mm(grad, b.t()), alpha) : Tensor(),
                ctx.needs_input_grad(2) ? scaled(mm(a.t(), grad), alpha) : Tensor()};
    }
};

// out = rows · weight^T + bias on the CPU, with weight^T read in place (what gemm_bias_into does
// for gemm_bias_into(rows, layout::t(weight), bias, each_row, out), without the view).
void linear_rows_into(const Tensor& rows, const Tensor& weight, const Tensor& bias, const Tensor& out)
{
    if (out.numel() == 0) return;
    const std::int64_t m = rows.size(0), k = rows.size(1), n = weight.size(0);
    const GemmOperand A = matrix_operand(rows), B = transposed_matrix_operand(weight);
    const Tensor bias_values = bias.defined() ? layout::contiguous(bias) : Tensor();
    visit_float_dtype(out.dtype(), [&](auto tag) {
        using T = decltype(tag);
        const kernels::cpu::GemmBias<T> epilogue{bias_values.defined() ? bias_values.data_ptr<T>() : nullptr, kernels::cpu::BiasAlong::rows};
        kernels::cpu::gemm(A.trans, B.trans, m, n, k, 1.0, A.data.data_ptr<T>(), A.ld, B.data.data_ptr<T>(), B.ld, 0.0, out.data_ptr<T>(), n,
                           epilogue);
    });
}

struct LinearOp {
    static constexpr const char* name = "linear";
    static Tensor forward(Context& ctx, const Tensor& x, const Tensor& weight, const Tensor& bias)
    {
        const Device device = op_device(name, {x, weight, bias});
        check_same_float_dtype(name, bias.defined() ? "x, weight and bias" : "x and weight", {x, weight, bias});
        TINYAMP_CHECK(weight.dim() == 2, shape, "linear: weight must be 2-D [out_features, in_features], but got shape ",
                      shape_str(weight.shape()));
        TINYAMP_CHECK(x.dim() >= 1, shape, "linear: x must have at least 1 dimension (its last holds the in_features), but got shape []");
        TINYAMP_CHECK(x.size(-1) == weight.size(1), shape, "linear: x of shape ", shape_str(x.shape()), " does not fit weight of shape ",
                      shape_str(weight.shape()), ": x's last dimension (", x.size(-1), ") must equal in_features (", weight.size(1),
                      ", the weight's second dimension)");
        const std::int64_t rows = leading_size(x), out_features = weight.size(0);
        if (bias.defined())
            TINYAMP_CHECK(bias.dim() == 1 && bias.size(0) == out_features, shape, "linear: bias of shape ", shape_str(bias.shape()),
                          " does not fit weight of shape ", shape_str(weight.shape()), ": it must have shape [", out_features,
                          "] (one per output feature)");
        ctx.save_for_backward({x, weight});
        // x as rows [rows, in] times weight^T, read in place; the GEMM's epilogue adds the bias to
        // each row before the one rounding, as PyTorch's addmm(bias, x, weight^T).
        Tensor out = empty({rows, out_features}, x.dtype(), device);
        // A 2-D x is already the rows: no views to make (on tiny layers they cost more than the product).
        const bool is_matrix = x.dim() == 2;
        const Tensor x_rows = is_matrix ? x : layout::reshape(x, {rows, x.size(-1)});
        if (device.is_cpu())
            linear_rows_into(x_rows, weight, bias, out);
        else
            detail::gemm_bias_into(x_rows, layout::t(weight), bias, detail::BiasAcross::each_row, out);
        if (is_matrix) return out;
        Shape shape = x.shape();
        shape.back() = out_features;
        return layout::view(out, shape);
    }
    static std::vector<Tensor> backward(Context& ctx, const Tensor& grad)
    {
        const Tensor& x = ctx.saved_tensors()[0];
        const Tensor& weight = ctx.saved_tensors()[1];
        const std::int64_t rows = leading_size(x);
        const Tensor g = grad.reshape({rows, weight.size(0)});  // [rows, out]
        return {ctx.needs_input_grad(0) ? mm(g, weight).reshape(x.shape()) : Tensor(),
                ctx.needs_input_grad(1) ? mm(g.t(), x.reshape({rows, x.size(-1)})) : Tensor(),
                ctx.needs_input_grad(2) ? sum(g, {0}) : Tensor()};
    }
};

}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b) { return dispatch<MatmulOp>(a, b); }
Tensor mm(const Tensor& a, const Tensor& b) { return dispatch<MmOp>(a, b); }
Tensor bmm(const Tensor& a, const Tensor& b) { return dispatch<BmmOp>(a, b); }
Tensor addmm(const Tensor& bias, const Tensor& a, const Tensor& b, double beta, double alpha)
{
    return dispatch<AddmmOp>(bias, a, b, beta, alpha);
}
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias) { return dispatch<LinearOp>(x, weight, bias); }

}  // namespace tinyamp
