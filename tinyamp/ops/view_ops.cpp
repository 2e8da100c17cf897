// Tensor's layout methods as ops: views (shape, strides and offset change; storage is shared),
// copies, and the dtype/device casts. Each forward calls tinyamp::layout; each backward maps the
// gradient back to the input's layout. Going through the dispatcher gives them gradients and a
// trace entry like every other op. They all take FP8/FP4 tensors (takes_minifloat): they move
// or convert codes and compute nothing.
#include <numeric>
#include <optional>

#include "kernels/cpu/strided_copy.h"
#include "tinyamp/tensor/factories.h"
#include "tinyamp/tensor/layout.h"
#include "tinyamp/dispatch/dispatch.h"
#include "tinyamp/ops/reduce.h"

namespace tinyamp {
namespace {

// view, reshape, unsqueeze and squeeze give the same elements a new shape (reshape copies them
// where no view can), so the gradient only needs the input's shape back. `new_shape` is the
// layout function; its argument is a shape or a dim.
template <class Arg, Tensor (*new_shape)(const Tensor&, Arg)>
struct NewShapeOp {
    static constexpr bool takes_minifloat = true;
    struct Saved {
        Shape input_shape;
    };
    static Tensor forward(ContextWith<Saved>& ctx, const Tensor& x, Arg arg)
    {
        ctx.saved.input_shape = x.shape();
        return new_shape(x, arg);
    }
    static std::vector<Tensor> backward(ContextWith<Saved>& ctx, const Tensor& grad) { return {grad.reshape(ctx.saved.input_shape)}; }
};

struct ViewOp : NewShapeOp<const Shape&, layout::view> {
    static constexpr const char* name = "view";
};
struct ReshapeOp : NewShapeOp<const Shape&, layout::reshape> {
    static constexpr const char* name = "reshape";
};
struct UnsqueezeOp : NewShapeOp<std::int64_t, layout::unsqueeze> {
    static constexpr const char* name = "unsqueeze";
};
struct SqueezeOp : NewShapeOp<std::int64_t, layout::squeeze> {
    static constexpr const char* name = "squeeze";
};

struct TransposeOp {
    static constexpr const char* name = "transpose";
    static constexpr bool takes_minifloat = true;
    struct Saved {
        std::int64_t dim0 = 0, dim1 = 0;
    };
    static Tensor forward(ContextWith<Saved>& ctx, const Tensor& x, std::int64_t dim0, std::int64_t dim1)
    {
        ctx.saved = {dim0, dim1};
        return layout::transpose(x, dim0, dim1);
    }
    static std::vector<Tensor> backward(ContextWith<Saved>& ctx, const Tensor& grad) { return {grad.transpose(ctx.saved.dim0, ctx.saved.dim1)}; }
};

struct PermuteOp {
    static constexpr const char* name = "permute";
    static constexpr bool takes_minifloat = true;
    struct Saved {
        std::vector<std::int64_t> inverse;  ///< the permutation that undoes dims
    };
    static Tensor forward(ContextWith<Saved>& ctx, const Tensor& x, const std::vector<std::int64_t>& dims)
    {
        Tensor out = layout::permute(x, dims);  // checks dims first
        std::vector<std::int64_t> inverse(dims.size());
        for (std::size_t i = 0; i < dims.size(); ++i) inverse[std::size_t(wrap_dim(dims[i], x.dim()))] = std::int64_t(i);
        ctx.saved.inverse = std::move(inverse);
        return out;
    }
    static std::vector<Tensor> backward(ContextWith<Saved>& ctx, const Tensor& grad) { return {grad.permute(ctx.saved.inverse)}; }
};

struct SliceArgs {
    Shape input_shape;
    std::int64_t dim, start, end, step;
};

// The gradient of a slice: zeros shaped like the sliced input, with the gradient written into
// the sliced part. Its own gradient is the same slice again.
struct SliceBackwardOp {
    static constexpr const char* name = "slice_backward";
    using Saved = SliceArgs;
    static Tensor forward(ContextWith<Saved>& ctx, const Tensor& grad, const SliceArgs& args)
    {
        ctx.saved = args;
        Tensor out = zeros(args.input_shape, grad.dtype(), grad.device());
        const Tensor part = layout::slice(out, args.dim, args.start, args.end, args.step);
        layout::copy_into(part, grad);  // strided scatter, on the CPU or (for CUDA tensors) on the device
        return out;
    }
    static std::vector<Tensor> backward(ContextWith<Saved>& ctx, const Tensor& grad)
    {
        const SliceArgs& a = ctx.saved;
        return {grad.slice(a.dim, a.start, a.end, a.step)};
    }
};

struct SliceOp {
    static constexpr const char* name = "slice";
    static constexpr bool takes_minifloat = true;
    using Saved = SliceArgs;
    static Tensor forward(ContextWith<Saved>& ctx, const Tensor& x, std::int64_t dim, std::int64_t start, std::int64_t end, std::int64_t step)
    {
        Tensor out = layout::slice(x, dim, start, end, step);  // checks the arguments first
        ctx.saved = SliceArgs{x.shape(), dim, start, end, step};
        return out;
    }
    static std::vector<Tensor> backward(ContextWith<Saved>& ctx, const Tensor& grad) { return {dispatch<SliceBackwardOp>(grad, ctx.saved)}; }
};

struct SelectOp {
    static constexpr const char* name = "select";
    static constexpr bool takes_minifloat = true;
    using Saved = SliceArgs;
    static Tensor forward(ContextWith<Saved>& ctx, const Tensor& x, std::int64_t dim, std::int64_t index)
    {
        Tensor out = layout::select(x, dim, index);  // checks the arguments first
        const std::int64_t d = wrap_dim(dim, x.dim());
        const std::int64_t i = index < 0 ? index + x.size(d) : index;
        ctx.saved = SliceArgs{x.shape(), d, i, i + 1, 1};
        return out;
    }
    static std::vector<Tensor> backward(ContextWith<Saved>& ctx, const Tensor& grad)
    {
        return {dispatch<SliceBackwardOp>(grad.unsqueeze(ctx.saved.dim), ctx.saved)};
    }
};

struct ExpandOp {
    static constexpr const char* name = "expand";
    static constexpr bool takes_minifloat = true;
    struct Saved {
        Shape input_shape;
    };
    static Tensor forward(ContextWith<Saved>& ctx, const Tensor& x, const Shape& shape)
    {
        ctx.saved.input_shape = x.shape();
        return layout::expand(x, shape);
    }
    // Every copy made by broadcasting passes its gradient back to the one element it came from.
    static std::vector<Tensor> backward(ContextWith<Saved>& ctx, const Tensor& grad) { return {sum_to(grad, ctx.saved.input_shape)}; }
};

struct CloneOp {
    static constexpr const char* name = "clone";
    static constexpr bool takes_minifloat = true;
    static Tensor forward(Context&, const Tensor& x) { return layout::clone(x); }
    static std::vector<Tensor> backward(Context&, const Tensor& grad) { return {grad}; }
};

// The casts, to a dtype ("to") and to a device ("to_device"): the backward casts the gradient
// back to the input's dtype or device. `source_of` reads that from the input; `cast` is the layout
// function.
template <class Target, Target (Tensor::*source_of)() const, Tensor (*cast)(const Tensor&, Target)>
struct CastOp {
    static constexpr bool takes_minifloat = true;
    struct Saved {
        std::optional<Target> source;  ///< the input's dtype or device, where the gradient goes back to (Device has no default)
    };
    static Tensor forward(ContextWith<Saved>& ctx, const Tensor& x, Target target)
    {
        ctx.saved.source = (x.*source_of)();
        return cast(x, target);
    }
    static std::vector<Tensor> backward(ContextWith<Saved>& ctx, const Tensor& grad) { return {grad.to(*ctx.saved.source)}; }
};

struct ToDTypeOp : CastOp<DType, &Tensor::dtype, layout::convert> {
    static constexpr const char* name = "to";
};
struct ToDeviceOp : CastOp<Device, &Tensor::device, layout::to_device> {
    static constexpr const char* name = "to_device";
};

}  // namespace

Tensor Tensor::view(const Shape& shape) const { return dispatch<ViewOp>(*this, shape); }
Tensor Tensor::reshape(const Shape& shape) const { return dispatch<ReshapeOp>(*this, shape); }
Tensor Tensor::transpose(std::int64_t dim0, std::int64_t dim1) const { return dispatch<TransposeOp>(*this, dim0, dim1); }
Tensor Tensor::permute(const std::vector<std::int64_t>& dims) const { return dispatch<PermuteOp>(*this, dims); }
Tensor Tensor::slice(std::int64_t dim, std::int64_t start, std::int64_t end, std::int64_t step) const
{
    return dispatch<SliceOp>(*this, dim, start, end, step);
}
Tensor Tensor::select(std::int64_t dim, std::int64_t index) const { return dispatch<SelectOp>(*this, dim, index); }
Tensor Tensor::unsqueeze(std::int64_t dim) const { return dispatch<UnsqueezeOp>(*this, dim); }
Tensor Tensor::squeeze(std::int64_t dim) const { return dispatch<SqueezeOp>(*this, dim); }
Tensor Tensor::expand(const Shape& shape) const { return dispatch<ExpandOp>(*this, shape); }
Tensor Tensor::clone() const { return dispatch<CloneOp>(*this); }

Tensor Tensor::t() const
{
    if (dim() > 2) layout::t(*this);  // throws the explanation
    return dim() == 2 ? transpose(0, 1) : *this;
}

Tensor Tensor::narrow(std::int64_t dim, std::int64_t start, std::int64_t length) const
{
    layout::narrow(*this, dim, start, length);  // validates the arguments and explains any mistake
    const std::int64_t begin = start < 0 ? start + size(dim) : start;
    return slice(dim, begin, begin + length);
}

// As in PyTorch, these return the tensor itself when there is nothing to do.
Tensor Tensor::contiguous() const { return is_contiguous() ? *this : clone(); }
Tensor Tensor::to(DType dtype) const { return dtype == this->dtype() ? *this : dispatch<ToDTypeOp>(*this, dtype); }
Tensor Tensor::to(Device device) const { return device == this->device() ? *this : dispatch<ToDeviceOp>(*this, device); }

}  // namespace tinyamp
