// cat and stack. Both copy each input into its slice of a new tensor (one kernel, `concatenate`);
// the backward of each hands every input its slice of the gradient back.
#include "tinyamp/ops/join.h"

#include "kernels/cpu/strided_copy.h"
#include "tinyamp/tensor/factories.h"
#include "tinyamp/tensor/layout.h"
#include "tinyamp/dispatch/dispatch.h"
#include "tinyamp/ops/type_promotion.h"

namespace tinyamp {
namespace {

// PyTorch's legacy rule: a 1-D empty tensor (say, the empty start of an accumulation loop) may be
// concatenated with anything and contributes nothing.
bool is_legacy_empty(const Tensor& t) { return t.dim() == 1 && t.numel() == 0; }

void check_list(const char* op, const std::vector<Tensor>& tensors)
{
    TINYAMP_CHECK(!tensors.empty(), value, op, ": expected a non-empty list of tensors");
    for (std::size_t i = 0; i < tensors.size(); ++i)
        TINYAMP_CHECK(tensors[i].defined(), value, op, ": tensor ", i, " of the list is undefined");
    require_cpu(op, tensors);
}

// The dtype all inputs meet in. cat's inputs all have dims and stack's all have one shape, so
// result_type folded over the list is promote_types folded over their dtypes.
DType joined_dtype(const std::vector<Tensor>& tensors)
{
    DType dtype = tensors[0].dtype();
    for (const Tensor& t : tensors) dtype = promote_types(dtype, t.dtype());
    return dtype;
}

// A new `shape` tensor of `dtype` holding `parts` (converted to dtype) end to end along `dim`.
Tensor concatenate(const std::vector<Tensor>& parts, std::int64_t dim, const Shape& shape, DType dtype)
{
    Tensor out = empty(shape, dtype);
    std::int64_t offset = 0;
    for (const Tensor& part : parts) {
        const Tensor dst = layout::slice(out, dim, offset, offset + part.size(dim));
        offset += part.size(dim);
        if (dst.numel() == 0) continue;
        const Tensor src = layout::contiguous(layout::convert(part, dtype));
        kernels::cpu::strided_scatter(src.data_ptr(), dst.shape().data(), dst.strides().data(), int(dst.dim()), dst.element_size(),
                                      dst.data_ptr());
    }
    return out;
}

struct CatOp {
    static constexpr const char* name = "cat";
    struct Saved {
        std::int64_t dim = 0;
        std::vector<std::int64_t> sizes;
    };
    static Tensor forward(ContextWith<Saved>& ctx, const std::vector<Tensor>& tensors, std::int64_t dim)
    {
        check_list(name, tensors);
        const DType dtype = joined_dtype(tensors);
        std::vector<Tensor> parts;  // the inputs that are not legacy empties, and their input numbers
        std::vector<std::size_t> numbers;
        for (std::size_t i = 0; i < tensors.size(); ++i) {
            if (is_legacy_empty(tensors[i])) continue;
            TINYAMP_CHECK(tensors[i].dim() > 0, shape, "cat: tensor ", i, " is 0-D (a scalar) and cannot be concatenated; use stack, or "
                          "unsqueeze it to 1-D first");
            parts.push_back(tensors[i]);
            numbers.push_back(i);
        }
        if (parts.empty()) {  // nothing but legacy empties
            wrap_dim(dim, 1);  // still a clear error for a dim out of range
            ctx.saved.dim = std::int64_t(0);
            ctx.saved.sizes = std::vector<std::int64_t>(tensors.size(), -1);
            return empty({0}, dtype);
        }

        // The first part sets the shape every other part must match outside `dim`.
        const Tensor& first = parts[0];
        const std::int64_t d = wrap_dim(dim, first.dim());
        Shape shape = first.shape();
        shape[std::size_t(d)] = 0;
        std::vector<std::int64_t> sizes(tensors.size(), -1);  // -1: a skipped legacy empty
        for (std::size_t p = 0; p < parts.size(); ++p) {
            const Tensor& t = parts[p];
            TINYAMP_CHECK(t.dim() == first.dim(), shape, "cat: tensor ", numbers[p], " has shape ", shape_str(t.shape()), " but tensor ",
                          numbers[0], " has shape ", shape_str(first.shape()), "; all tensors need the same number of dimensions");
            for (std::int64_t k = 0; k < t.dim(); ++k)
                TINYAMP_CHECK(k == d || t.size(k) == first.size(k), shape, "cat: sizes must match except in dimension ", d, ", but tensor ",
                              numbers[p], " has shape ", shape_str(t.shape()), " and tensor ", numbers[0], " has shape ",
                              shape_str(first.shape()), " (dimension ", k, " differs)");
            sizes[numbers[p]] = t.size(d);
            shape[std::size_t(d)] += t.size(d);
        }
        ctx.saved.dim = d;
        ctx.saved.sizes = sizes;
        return concatenate(parts, d, shape, dtype);
    }
    static std::vector<Tensor> backward(ContextWith<Saved>& ctx, const Tensor& grad)
    {
        const auto d = ctx.saved.dim;
        const auto& sizes = ctx.saved.sizes;
        std::vector<Tensor> grads(sizes.size());
        std::int64_t offset = 0;
        for (std::size_t i = 0; i < sizes.size(); ++i) {
            if (sizes[i] < 0) {
                if (ctx.needs_input_grad(i)) grads[i] = zeros({0}, grad.dtype());
                continue;
            }
            if (ctx.needs_input_grad(i)) grads[i] = grad.slice(d, offset, offset + sizes[i]);
            offset += sizes[i];
        }
        return grads;
    }
};

struct StackOp {
    static constexpr const char* name = "stack";
    struct Saved {
        std::int64_t dim = 0;
    };
    static Tensor forward(ContextWith<Saved>& ctx, const std::vector<Tensor>& tensors, std::int64_t dim)
    {
        check_list(name, tensors);
        const Tensor& first = tensors[0];
        for (std::size_t i = 1; i < tensors.size(); ++i)
            TINYAMP_CHECK(tensors[i].shape() == first.shape(), shape, "stack: every tensor must have the same shape, but tensor ", i,
                          " has shape ", shape_str(tensors[i].shape()), " and tensor 0 has shape ", shape_str(first.shape()));
        const std::int64_t ndim = first.dim() + 1;  // the result's
        TINYAMP_CHECK(dim >= -ndim && dim < ndim, index, "stack: dim ", dim, " is out of range for stacking ", first.dim(),
                      "-D tensors into ", ndim, "-D (valid: ", -ndim, "..", ndim - 1, ")");
        const std::int64_t d = dim < 0 ? dim + ndim : dim;
        std::vector<Tensor> parts;
        for (const Tensor& t : tensors) parts.push_back(layout::unsqueeze(t, d));
        Shape shape = first.shape();
        shape.insert(shape.begin() + d, std::int64_t(tensors.size()));
        ctx.saved.dim = d;
        return concatenate(parts, d, shape, joined_dtype(tensors));
    }
    static std::vector<Tensor> backward(ContextWith<Saved>& ctx, const Tensor& grad)
    {
        const auto d = ctx.saved.dim;
        std::vector<Tensor> grads(std::size_t(grad.size(d)));
        for (std::size_t i = 0; i < grads.size(); ++i)
            if (ctx.needs_input_grad(i)) grads[i] = grad.select(d, std::int64_t(i));
        return grads;
    }
};

}  // namespace

Tensor cat(const std::vector<Tensor>& tensors, std::int64_t dim) { return dispatch<CatOp>(tensors, dim); }
Tensor stack(const std::vector<Tensor>& tensors, std::int64_t dim) { return dispatch<StackOp>(tensors, dim); }

}  // namespace tinyamp
