// Tensor layout without autograd: views that share storage (only shape, strides and offset
// change), copies, dtype conversion and device moves. The Tensor methods of the same names go
// through the dispatcher (and so get a gradient and a trace entry); their forwards call these.
#include "tinyamp/tensor/layout.h"

#include <algorithm>
#include <limits>

#include "kernels/cpu/convert.h"
#include "kernels/cpu/strided_copy.h"
#include "kernels/cuda/convert_cuda.h"
#include "kernels/cuda/strided_copy_cuda.h"
#include "tinyamp/tensor/cuda_memory.h"

namespace tinyamp::layout {
namespace {

std::shared_ptr<TensorImpl> new_impl(const Shape& shape, DType dtype, Device device)
{
    auto impl = std::make_shared<TensorImpl>();
    impl->storage = std::make_shared<Storage>(storage_nbytes(shape, dtype), dtype, device);
    impl->shape = shape;
    impl->strides = contiguous_strides(shape);
    impl->dtype = dtype;
    return impl;
}

// A dimension that has a size. wrap_dim alone accepts 0 and -1 for a 0-D tensor (as PyTorch's
// reductions do), but a scalar has no size or stride to read there.
std::size_t existing_dim(std::int64_t dim, const Shape& shape, const char* what)
{
    TINYAMP_CHECK(!shape.empty(), index, what, "(dim=", dim, ") needs a dimension, but the tensor is 0-D (a scalar); "
                                                         "unsqueeze it first or read it with item()");
    return std::size_t(wrap_dim(dim, std::int64_t(shape.size())));
}

}  // namespace

Tensor as_strided(const Tensor& self, Shape shape, Strides strides, std::int64_t offset)
{
    auto impl = std::make_shared<TensorImpl>();
    impl->storage = self.storage();
    impl->shape = std::move(shape);
    impl->strides = std::move(strides);
    impl->offset = offset;
    impl->dtype = self.dtype();
    impl->is_view = true;
    return Tensor(std::move(impl));
}

// ---------------------------------------------------------------- views

Tensor view(const Tensor& self, const Shape& requested)
{
    const Shape new_shape = infer_size(requested, self.numel());
    const ViewStrides v = view_strides(self.shape(), self.strides(), new_shape);
    TINYAMP_CHECK(v.ok, shape, "view(", shape_str(requested), ") is not possible for a tensor of shape ", shape_str(self.shape()),
                  " with strides ", shape_str(self.strides()), ": its elements are not laid out so that one view covers them; "
                  "use .reshape(...) (which copies when needed) or call .contiguous() first");
    return as_strided(self, new_shape, v.strides, self.storage_offset());
}

Tensor reshape(const Tensor& self, const Shape& requested)
{
    const Shape new_shape = infer_size(requested, self.numel());
    const ViewStrides v = view_strides(self.shape(), self.strides(), new_shape);
    if (v.ok) return as_strided(self, new_shape, v.strides, self.storage_offset());
    return view(clone(self), new_shape);
}

Tensor transpose(const Tensor& self, std::int64_t dim0, std::int64_t dim1)
{
    if (self.dim() == 0) {  // as in PyTorch: transpose(0, 0) of a scalar is the scalar
        wrap_dim(dim0, 0);
        wrap_dim(dim1, 0);
        return as_strided(self, self.shape(), self.strides(), self.storage_offset());
    }
    const std::size_t a = std::size_t(wrap_dim(dim0, self.dim())), b = std::size_t(wrap_dim(dim1, self.dim()));
    Shape s = self.shape();
    Strides st = self.strides();
    std::swap(s[a], s[b]);
    std::swap(st[a], st[b]);
    return as_strided(self, s, st, self.storage_offset());
}

Tensor t(const Tensor& self)
{
    TINYAMP_CHECK(self.dim() <= 2, shape, "t() expects a tensor with at most 2 dimensions, got shape ", shape_str(self.shape()),
                  "; use transpose(dim0, dim1) or permute(...)");
    return self.dim() == 2 ? transpose(self, 0, 1) : self;
}

Tensor permute(const Tensor& self, const std::vector<std::int64_t>& dims)
{
    TINYAMP_CHECK(std::int64_t(dims.size()) == self.dim(), shape, "permute got ", dims.size(), " dims ", shape_str(dims),
                  " for a tensor with ", self.dim(), " dimensions (shape ", shape_str(self.shape()), "); name each dimension once");
    Shape s(dims.size());
    Strides st(dims.size());
    std::vector<bool> seen(dims.size(), false);
    for (std::size_t i = 0; i < dims.size(); ++i) {
        const std::size_t d = std::size_t(wrap_dim(dims[i], self.dim()));
        TINYAMP_CHECK(!seen[d], shape, "permute dims ", shape_str(dims), " repeat dimension ", d, "; name each dimension once");
        seen[d] = true;
        s[i] = self.shape()[d];
        st[i] = self.strides()[d];
    }
    return as_strided(self, s, st, self.storage_offset());
}

Tensor slice(const Tensor& self, std::int64_t d, std::int64_t start, std::int64_t end, std::int64_t step)
{
    const std::size_t k = existing_dim(d, self.shape(), "slice");
    TINYAMP_CHECK(step > 0, value, "slice step must be positive, got ", step);
    const std::int64_t n = self.shape()[k];
    auto clamp = [n](std::int64_t i) { return std::clamp(i < 0 ? i + n : i, std::int64_t{0}, n); };
    start = clamp(start);
    end = std::max(clamp(end), start);
    Shape s = self.shape();
    Strides st = self.strides();
    s[k] = end == start ? 0 : (end - start - 1) / step + 1;  // no overflow for a huge step
    st[k] = self.strides()[k] * step;
    return as_strided(self, s, st, self.storage_offset() + start * self.strides()[k]);
}

Tensor narrow(const Tensor& self, std::int64_t d, std::int64_t start, std::int64_t length)
{
    const std::size_t k = existing_dim(d, self.shape(), "narrow");
    const std::int64_t n = self.shape()[k];
    const std::int64_t begin = start < 0 ? start + n : start;
    TINYAMP_CHECK(begin >= 0 && length >= 0 && length <= n - begin, index, "narrow(dim=", d, ", start=", start, ", length=", length,
                  ") does not fit in a dimension of size ", n, " (shape ", shape_str(self.shape()), "); need 0 <= start and start + length <= ", n);
    return slice(self, d, begin, begin + length);
}

Tensor select(const Tensor& self, std::int64_t d, std::int64_t index)
{
    const std::size_t k = existing_dim(d, self.shape(), "select");
    index = wrap_index(index, self.shape()[k], std::int64_t(k));
    Shape s = self.shape();
    Strides st = self.strides();
    const std::int64_t offset = self.storage_offset() + index * st[k];
    s.erase(s.begin() + std::ptrdiff_t(k));
    st.erase(st.begin() + std::ptrdiff_t(k));
    return as_strided(self, s, st, offset);
}

Tensor unsqueeze(const Tensor& self, std::int64_t d)
{
    const std::size_t k = std::size_t(wrap_dim(d, self.dim() + 1));
    Shape s = self.shape();
    Strides st = self.strides();
    const std::int64_t new_stride = k < s.size() ? s[k] * st[k] : 1;
    s.insert(s.begin() + std::ptrdiff_t(k), 1);
    st.insert(st.begin() + std::ptrdiff_t(k), new_stride);
    return as_strided(self, s, st, self.storage_offset());
}

Tensor squeeze(const Tensor& self, std::int64_t d)
{
    // Always a new view (as in PyTorch), even when nothing is squeezed, so that renaming or
    // re-flagging the result never touches this tensor.
    if (self.dim() == 0) {
        wrap_dim(d, 0);  // only 0 and -1 name a scalar's (absent) dimension
        return as_strided(self, self.shape(), self.strides(), self.storage_offset());
    }
    const std::size_t k = std::size_t(wrap_dim(d, self.dim()));
    if (self.shape()[k] != 1) return as_strided(self, self.shape(), self.strides(), self.storage_offset());
    Shape s = self.shape();
    Strides st = self.strides();
    s.erase(s.begin() + std::ptrdiff_t(k));
    st.erase(st.begin() + std::ptrdiff_t(k));
    return as_strided(self, s, st, self.storage_offset());
}

Tensor expand(const Tensor& self, const Shape& target)
{
    TINYAMP_CHECK(std::int64_t(target.size()) >= self.dim(), shape, "expand(", shape_str(target), ") has fewer dimensions than the tensor's shape ",
                  shape_str(self.shape()), "; expand can only add leading dimensions");
    const std::size_t lead = target.size() - self.shape().size();
    Shape s(target.size());
    Strides st(target.size());
    for (std::size_t i = 0; i < target.size(); ++i) {
        if (i < lead) {
            TINYAMP_CHECK(target[i] >= 0, shape, "expand(", shape_str(target), "): a new leading dimension needs a size >= 0 "
                                                 "(-1 only keeps an existing size)");
            s[i] = target[i];
            st[i] = 0;
            continue;
        }
        TINYAMP_CHECK(target[i] >= -1, shape, "expand(", shape_str(target), ") has a negative size ", target[i],
                      "; sizes must be >= 0, or -1 to keep a size");
        const std::int64_t have = self.shape()[i - lead];
        const std::int64_t want = target[i] == -1 ? have : target[i];
        TINYAMP_CHECK(want == have || have == 1, shape, "cannot expand shape ", shape_str(self.shape()), " to ", shape_str(target),
                      ": dimension ", i, " has size ", have, ", and only sizes of 1 can be expanded");
        s[i] = want;
        st[i] = want == have ? self.strides()[i - lead] : 0;
    }
    return as_strided(self, s, st, self.storage_offset());
}

// ---------------------------------------------------------------- copies

Tensor contiguous(const Tensor& self) { return self.is_contiguous() ? self : clone(self); }

Tensor clone(const Tensor& self)
{
    Tensor out(new_impl(self.shape(), self.dtype(), self.device()));
    if (self.device().is_cpu()) {
        kernels::cpu::strided_copy(self.data_ptr(), self.shape().data(), self.strides().data(), int(self.dim()), self.element_size(), out.data_ptr());
    } else if (self.is_contiguous()) {
        cuda_memory::copy(out.data_ptr(), self.device(), self.data_ptr(), self.device(), self.nbytes());
    } else {
        // A view of a CUDA tensor is gathered on its device (kernels/cuda/strided_copy_cuda.cu).
        kernels::cuda::strided_copy(self.data_ptr(), self.shape().data(), self.strides().data(), int(self.dim()), self.element_size(),
                                    out.data_ptr(), self.device().index());
    }
    return out;
}

Tensor convert(const Tensor& self, DType target)
{
    if (target == self.dtype()) return self;
    TINYAMP_CHECK(self.device().is_cpu() || (!is_minifloat(target) && !is_minifloat(self.dtype())), device, "to(", dtype_name(target),
                  ") of a ", dtype_name(self.dtype()), " tensor on ", self.device(),
                  ": tinyamp converts FP8/FP4 tensors on the CPU only; move the tensor with .cpu() first");
    const Tensor src = contiguous(self);
    Tensor out(new_impl(self.shape(), target, self.device()));
    // CUDA tensors convert on their device, with the same rounding as the CPU (kernels/cuda/convert_cuda.cu).
    const std::int64_t bad = self.device().is_cpu()
                                 ? kernels::cpu::convert(src.data_ptr(), self.dtype(), out.data_ptr(), target, self.numel())
                                 : kernels::cuda::convert(src.data_ptr(), self.dtype(), out.data_ptr(), target, self.numel(), self.device().index());
    if (bad >= 0) {
        const double value = to_device(src, Device::cpu()).to_vector()[std::size_t(bad)];
        TINYAMP_FAIL(value, "to(", dtype_name(target), "): element ", bad, " (flat index) is ", value, ", which has no ",
                     dtype_name(target), " value; replace NaN/inf or clamp the tensor to the target's range before converting");
    }
    return out;
}

Tensor to_device(const Tensor& self, Device target)
{
    if (target == self.device()) return self;
    const Tensor src = contiguous(self);
    Tensor out(new_impl(self.shape(), self.dtype(), target));
    cuda_memory::copy(out.data_ptr(), target, src.data_ptr(), self.device(), self.nbytes());
    return out;
}

void copy_into(const Tensor& dst, const Tensor& src)
{
    const Tensor ready = contiguous(convert(to_device(expand(src, dst.shape()), dst.device()), dst.dtype()));
    if (dst.numel() == 0) return;
    if (!dst.device().is_cpu()) {
        if (dst.is_contiguous()) {
            cuda_memory::copy(dst.data_ptr(), dst.device(), ready.data_ptr(), dst.device(), dst.nbytes());
        } else {
            kernels::cuda::strided_scatter(ready.data_ptr(), dst.shape().data(), dst.strides().data(), int(dst.dim()), dst.element_size(),
                                           dst.data_ptr(), dst.device().index());
        }
        return;
    }
    kernels::cpu::strided_scatter(ready.data_ptr(), dst.shape().data(), dst.strides().data(), int(dst.dim()), dst.element_size(),
                                  dst.data_ptr());
}

}  // namespace tinyamp::layout
