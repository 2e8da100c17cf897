#include "tinyamp/ops/reduce.h"

#include <algorithm>

#include "kernels/cpu/nonzero_count.h"
#include "kernels/cpu/reduce_loops.h"
#include "kernels/cuda/reduce_cuda.h"
#include "tinyamp/tensor/factories.h"
#include "tinyamp/tensor/layout.h"
#include "tinyamp/dispatch/dispatch.h"
#include "tinyamp/ops/cuda_forward.h"
#include "tinyamp/ops/elementwise.h"
#include "tinyamp/ops/type_promotion.h"

namespace tinyamp {
namespace {

// The dims to reduce, wrapped, sorted and checked once; empty `dims` means all of them.
std::vector<std::int64_t> reduced_dims(const char* op, const Tensor& x, const std::vector<std::int64_t>& dims)
{
    std::vector<std::int64_t> out;
    if (dims.empty()) {
        for (std::int64_t d = 0; d < x.dim(); ++d) out.push_back(d);
        return out;
    }
    for (std::int64_t d : dims) out.push_back(wrap_dim(d, x.dim()));
    std::sort(out.begin(), out.end());
    TINYAMP_CHECK(std::adjacent_find(out.begin(), out.end()) == out.end(), index, op, ": dims ", shape_str(dims),
                  " name a dimension twice; name each once");
    if (x.dim() == 0) out.clear();  // a scalar reduces over nothing
    return out;
}

struct Reduction {
    Tensor rows;        // x permuted so kept dims come first, reduced dims last, contiguous
    std::int64_t outer; // product of kept sizes
    std::int64_t inner; // product of reduced sizes
    Shape out_shape;    // without keepdim
    Shape keep_shape;   // with keepdim (1 in each reduced dim)
};

Reduction prepare(const Tensor& x, const std::vector<std::int64_t>& dims)
{
    std::vector<bool> reduced(std::size_t(x.dim()), false);
    for (auto d : dims) reduced[std::size_t(d)] = true;
    std::vector<std::int64_t> order;
    Reduction r{Tensor(), 1, 1, {}, {}};
    for (std::int64_t d = 0; d < x.dim(); ++d)
        if (!reduced[std::size_t(d)]) {
            order.push_back(d);
            r.outer *= x.size(d);
            r.out_shape.push_back(x.size(d));
        }
    for (std::int64_t d : dims) {
        order.push_back(d);
        r.inner *= x.size(d);
    }
    for (std::int64_t d = 0; d < x.dim(); ++d) r.keep_shape.push_back(reduced[std::size_t(d)] ? 1 : x.size(d));
    r.rows = layout::contiguous(layout::permute(x, order));
    return r;
}

DType sum_dtype(DType d) { return is_floating_point(d) ? d : DType::i64; }

// x's shape with a 1 in each reduced dim (what keepdim gives), without preparing any rows.
Shape keep_shape_of(const Tensor& x, const std::vector<std::int64_t>& dims)
{
    Shape shape = x.shape();
    for (std::int64_t d : dims) shape[std::size_t(d)] = 1;
    return shape;
}

// The sum over the leading dims of a contiguous tensor (a bias gradient: the sum over the batch),
// read in place as columns rather than transposed into rows first: same order, same bits.
Tensor sum_leading_dims(const Tensor& x, const std::vector<std::int64_t>& dims, bool keepdim, double scale)
{
    const auto count = std::ptrdiff_t(dims.size());
    const Shape kept(x.shape().begin() + count, x.shape().end());
    const std::int64_t rows = numel(Shape(x.shape().begin(), x.shape().begin() + count)), cols = numel(kept);
    Tensor out = empty(keepdim ? keep_shape_of(x, dims) : kept, sum_dtype(x.dtype()));
    visit_dtype(x.dtype(), [&](auto in_tag) {
        using In = decltype(in_tag);
        if constexpr (std::is_same_v<In, std::int64_t> || std::is_same_v<In, bool>)
            kernels::cpu::sum_columns(x.data_ptr<In>(), rows, cols, out.data_ptr<std::int64_t>());
        else
            kernels::cpu::sum_columns(x.data_ptr<In>(), rows, cols, out.data_ptr<In>(), scale);
    });
    return out;
}

Tensor sum_kernel(const Tensor& x, const std::vector<std::int64_t>& dims, bool keepdim, double scale)
{
    if (x.device().is_cuda()) {  // the reduced dims gathered last on the device, then one CUDA row sum
        const Reduction r = prepare(x, dims);
        Tensor out = empty(keepdim ? r.keep_shape : r.out_shape, sum_dtype(x.dtype()), x.device());
        kernels::cuda::sum_rows(r.rows.data_ptr(), x.dtype(), r.outer, r.inner, out.data_ptr(), out.dtype(), scale, x.device().index());
        return out;
    }
    bool leading = x.is_contiguous() && !dims.empty() && std::int64_t(dims.size()) < x.dim();
    for (std::size_t i = 0; leading && i < dims.size(); ++i) leading = dims[i] == std::int64_t(i);  // dims are sorted
    if (leading) return sum_leading_dims(x, dims, keepdim, scale);
    const Reduction r = prepare(x, dims);
    Tensor out = empty(keepdim ? r.keep_shape : r.out_shape, sum_dtype(x.dtype()));
    visit_dtype(x.dtype(), [&](auto in_tag) {
        using In = decltype(in_tag);
        if constexpr (std::is_same_v<In, std::int64_t> || std::is_same_v<In, bool>)
            kernels::cpu::sum_rows(r.rows.data_ptr<In>(), r.outer, r.inner, out.data_ptr<std::int64_t>());
        else
            kernels::cpu::sum_rows(r.rows.data_ptr<In>(), r.outer, r.inner, out.data_ptr<In>(), scale);
    });
    return out;
}

struct SumOp {
    static constexpr const char* name = "sum";
    struct Saved {
        Shape input_shape;
        Shape keep_shape;
    };
    static Tensor forward(ContextWith<Saved>& ctx, const Tensor& x, const std::vector<std::int64_t>& dims, bool keepdim, std::optional<DType> dtype)
    {
        op_device(name, {x});
        const auto reduce = reduced_dims(name, x, dims);
        ctx.saved.input_shape = x.shape();
        ctx.saved.keep_shape = keep_shape_of(x, reduce);
        // With dtype=, the conversion is part of this op (no separate cast node); the engine sends
        // the gradient back in x's own dtype.
        return sum_kernel(dtype ? layout::convert(x, *dtype) : x, reduce, keepdim, 1.0);
    }
    static std::vector<Tensor> backward(ContextWith<Saved>& ctx, const Tensor& grad)
    {
        // Every input element contributed once: spread the gradient back over the reduced dims.
        return {grad.reshape(ctx.saved.keep_shape).expand(ctx.saved.input_shape)};
    }
};

struct MeanOp {
    static constexpr const char* name = "mean";
    struct Saved {
        Shape input_shape;
        Shape keep_shape;
        double count = 1;
    };
    static Tensor forward(ContextWith<Saved>& ctx, const Tensor& x, const std::vector<std::int64_t>& dims, bool keepdim)
    {
        op_device(name, {x});
        TINYAMP_CHECK(is_floating_point(x.dtype()), dtype, "mean needs a floating point tensor, got ", dtype_name(x.dtype()),
                      "; convert it with .to(f32) first");
        const auto reduce = reduced_dims(name, x, dims);
        const Reduction r = prepare(x, reduce);
        ctx.saved.input_shape = x.shape();
        ctx.saved.keep_shape = r.keep_shape;
        ctx.saved.count = double(r.inner);
        return sum_kernel(x, reduce, keepdim, 1.0 / double(r.inner));
    }
    static std::vector<Tensor> backward(ContextWith<Saved>& ctx, const Tensor& grad)
    {
        const Tensor spread = grad.reshape(ctx.saved.keep_shape).expand(ctx.saved.input_shape);
        return {div(spread, ctx.saved.count)};
    }
};

// Along one dim: (values, indices). The index tensor is computed first, without a gradient;
// the values op takes it and sends each gradient back to where its maximum came from.
Tensor argmax_kernel(const Tensor& x, std::int64_t dim, bool keepdim)
{
    TINYAMP_CHECK(x.numel() > 0, shape, "max/argmax of an empty tensor (shape ", shape_str(x.shape()), ") has no answer");
    const Reduction r = prepare(x, {dim});
    Tensor indices = empty(keepdim ? r.keep_shape : r.out_shape, DType::i64, x.device());
    if (x.device().is_cuda()) {
        kernels::cuda::max_rows(r.rows.data_ptr(), x.dtype(), r.outer, r.inner, nullptr, indices.data_ptr<std::int64_t>(), x.device().index());
        return indices;
    }
    visit_dtype(x.dtype(), [&](auto tag) {
        using T = decltype(tag);
        kernels::cpu::max_rows<T>(r.rows.data_ptr<T>(), r.outer, r.inner, nullptr, indices.data_ptr<std::int64_t>());
    });
    return indices;
}

struct ArgmaxOp {
    static constexpr const char* name = "argmax";
    static Tensor forward(Context&, const Tensor& x, std::int64_t dim, bool keepdim)
    {
        op_device(name, {x});
        if (x.dim() == 0) return zeros({}, DType::i64);
        return argmax_kernel(x, wrap_dim(dim, x.dim()), keepdim);
    }
};

// How many elements are not zero: i64, no gradient. On the GPU, x != 0 then a sum of the bools.
struct CountNonzeroOp {
    static constexpr const char* name = "count_nonzero";
    static Tensor forward(Context&, const Tensor& x)
    {
        const Device device = op_device(name, {x});
        if (device.is_cuda()) {
            const Tensor nonzero = cuda_forward::binary(kernels::BinaryOp::ne, x, zeros({}, x.dtype()), x.dtype(), device);
            return sum_kernel(nonzero, reduced_dims(name, nonzero, {}), false, 1.0);
        }
        const Tensor dense = layout::contiguous(x);
        Tensor count = empty({}, DType::i64);
        visit_dtype(x.dtype(), [&](auto tag) {
            using T = decltype(tag);
            *count.data_ptr<std::int64_t>() = kernels::cpu::count_nonzero(dense.data_ptr<T>(), dense.numel());
        });
        return count;
    }
};

// The values at `indices` along `dim` (indices from argmax): differentiable in x. Both use the
// same [kept dims..., dim] row layout, so row r's maximum is rows[r][indices[r]].
struct MaxAlongOp {
    static constexpr const char* name = "max";
    struct Saved {
        Shape input_shape;
        std::int64_t dim = 0;
    };
    static Tensor forward(ContextWith<Saved>& ctx, const Tensor& x, const Tensor& indices, std::int64_t dim, bool keepdim)
    {
        ctx.save_for_backward({indices});
        ctx.saved.input_shape = x.shape();
        ctx.saved.dim = dim;
        const Reduction r = prepare(x, {dim});
        const Tensor idx = layout::contiguous(indices);
        Tensor values = empty(keepdim ? r.keep_shape : r.out_shape, x.dtype(), x.device());
        if (x.device().is_cuda()) {
            kernels::cuda::take_along_rows(r.rows.data_ptr(), x.element_size(), r.outer, r.inner, idx.data_ptr<std::int64_t>(),
                                           values.data_ptr(), x.device().index());
            return values;
        }
        const auto bytes = std::size_t(x.element_size());
        const auto* src = static_cast<const unsigned char*>(r.rows.data_ptr());
        auto* dst = static_cast<unsigned char*>(values.data_ptr());
        const std::int64_t* at = idx.data_ptr<std::int64_t>();
        for (std::int64_t row = 0; row < r.outer; ++row) {
            const std::size_t from = std::size_t(row * r.inner + at[row]) * bytes;
            std::copy(src + from, src + from + bytes, dst + std::size_t(row) * bytes);
        }
        return values;
    }
    static std::vector<Tensor> backward(ContextWith<Saved>& ctx, const Tensor& grad)
    {
        // Each gradient goes back to the one position its maximum came from; all others get 0.
        // Built in forward's [kept dims..., dim] layout, then permuted back to x's order.
        const Tensor& indices = ctx.saved_tensors()[0];
        const Shape& shape = ctx.saved.input_shape;
        const auto dim = ctx.saved.dim;
        std::vector<std::int64_t> order;
        for (std::int64_t d = 0; d < std::int64_t(shape.size()); ++d)
            if (d != dim) order.push_back(d);
        order.push_back(dim);
        Shape permuted_shape;
        std::vector<std::int64_t> back(order.size());
        for (std::size_t i = 0; i < order.size(); ++i) {
            permuted_shape.push_back(shape[std::size_t(order[i])]);
            back[std::size_t(order[i])] = std::int64_t(i);
        }
        Tensor rows = zeros(permuted_shape, grad.dtype(), grad.device());
        const Tensor g = layout::contiguous(grad);
        const Tensor idx = layout::contiguous(indices);
        const std::int64_t inner = shape[std::size_t(dim)];
        if (g.device().is_cuda()) {
            kernels::cuda::put_along_rows(g.data_ptr(), g.element_size(), g.numel(), inner, idx.data_ptr<std::int64_t>(), rows.data_ptr(),
                                          g.device().index());
            return {layout::contiguous(layout::permute(rows, back)), Tensor()};
        }
        const auto bytes = std::size_t(grad.element_size());
        const auto* src = static_cast<const unsigned char*>(g.data_ptr());
        auto* dst = static_cast<unsigned char*>(rows.data_ptr());
        const std::int64_t* at = idx.data_ptr<std::int64_t>();
        const std::int64_t rows_of_g = g.numel();
        for (std::int64_t row = 0; row < rows_of_g; ++row)
            std::copy(src + std::size_t(row) * bytes, src + std::size_t(row + 1) * bytes, dst + std::size_t(row * inner + at[row]) * bytes);
        return {layout::contiguous(layout::permute(rows, back)), Tensor()};
    }
};

}  // namespace

Tensor sum(const Tensor& x, std::optional<DType> dtype) { return dispatch<SumOp>(x, std::vector<std::int64_t>{}, false, dtype); }
Tensor sum(const Tensor& x, const std::vector<std::int64_t>& dims, bool keepdim, std::optional<DType> dtype)
{
    TINYAMP_CHECK(!dims.empty() || x.dim() == 0, index, "sum: an empty list of dims would reduce nothing; call sum(x) for all dims");
    return dispatch<SumOp>(x, dims, keepdim, dtype);
}
Tensor mean(const Tensor& x) { return dispatch<MeanOp>(x, std::vector<std::int64_t>{}, false); }
Tensor mean(const Tensor& x, const std::vector<std::int64_t>& dims, bool keepdim)
{
    TINYAMP_CHECK(!dims.empty() || x.dim() == 0, index, "mean: an empty list of dims would reduce nothing; call mean(x) for all dims");
    return dispatch<MeanOp>(x, dims, keepdim);
}

Tensor argmax(const Tensor& x, std::int64_t dim, bool keepdim) { return dispatch<ArgmaxOp>(x, dim, keepdim); }
Tensor count_nonzero(const Tensor& x) { return dispatch<CountNonzeroOp>(x); }
Tensor argmax(const Tensor& x) { return argmax(x.reshape({-1}), 0, false); }

MaxResult max(const Tensor& x, std::int64_t dim, bool keepdim)
{
    if (x.dim() == 0) return {x, zeros({}, DType::i64)};
    const std::int64_t d = wrap_dim(dim, x.dim());
    const Tensor indices = argmax(x, d, keepdim);
    return {dispatch<MaxAlongOp>(x, indices, d, keepdim), indices};
}

Tensor max(const Tensor& x) { return max(x.reshape({-1}), 0, false).values; }

Tensor sum_to(const Tensor& x, const Shape& shape)
{
    if (x.shape() == shape) return x;
    TINYAMP_CHECK(std::int64_t(shape.size()) <= x.dim(), shape, "sum_to: cannot sum shape ", shape_str(x.shape()), " down to the longer ",
                  shape_str(shape));
    const std::size_t lead = std::size_t(x.dim()) - shape.size();
    std::vector<std::int64_t> dims;
    for (std::size_t d = 0; d < std::size_t(x.dim()); ++d) {
        if (d < lead) {
            dims.push_back(std::int64_t(d));
        } else if (shape[d - lead] == 1 && x.size(std::int64_t(d)) != 1) {
            dims.push_back(std::int64_t(d));
        } else {
            TINYAMP_CHECK(shape[d - lead] == x.size(std::int64_t(d)), shape, "sum_to: shape ", shape_str(x.shape()),
                          " is not a broadcast of ", shape_str(shape));
        }
    }
    const Tensor summed = dims.empty() ? x : sum(x, dims, true);
    return summed.reshape(shape);
}

}  // namespace tinyamp
