#include "tinyamp/core/tensor.h"

#include <algorithm>

#include "kernels/cpu/convert.h"
#include "kernels/cpu/strided_copy.h"
#include "tinyamp/core/cuda_memory.h"

namespace tinyamp {
namespace {

std::shared_ptr<TensorImpl> new_impl(const Shape& shape, DType dtype, Device device)
{
    auto impl = std::make_shared<TensorImpl>();
    impl->storage = std::make_shared<Storage>(numel(shape) * dtype_size(dtype), dtype, device);
    impl->shape = shape;
    impl->strides = contiguous_strides(shape);
    impl->dtype = dtype;
    return impl;
}

std::string index_str(const std::int64_t* index, std::size_t count)
{
    return shape_str(Shape(index, index + count));
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

Tensor::Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

TensorImpl& Tensor::checked() const
{
    TINYAMP_CHECK(impl_ != nullptr, state, "this Tensor is undefined (default-constructed or moved from); "
                                           "create one with a factory such as tinyamp::zeros(shape)");
    return *impl_;
}

const Shape& Tensor::shape() const { return checked().shape; }
std::int64_t Tensor::dim() const { return std::int64_t(shape().size()); }
std::int64_t Tensor::size(std::int64_t d) const { return shape()[existing_dim(d, shape(), "size")]; }
std::int64_t Tensor::numel() const { return tinyamp::numel(shape()); }
const Strides& Tensor::strides() const { return checked().strides; }
std::int64_t Tensor::stride(std::int64_t d) const { return strides()[existing_dim(d, shape(), "stride")]; }
std::int64_t Tensor::storage_offset() const { return checked().offset; }
DType Tensor::dtype() const { return checked().dtype; }
Device Tensor::device() const { return checked().storage->device(); }
const std::shared_ptr<Storage>& Tensor::storage() const { return checked().storage; }
bool Tensor::shares_storage_with(const Tensor& other) const { return storage() == other.storage(); }

bool Tensor::is_contiguous() const
{
    // Sizes of 1 may have any stride; empty tensors are contiguous.
    const Shape& s = shape();
    const Strides& st = strides();
    std::int64_t expected = 1;
    for (std::size_t i = s.size(); i-- > 0;) {
        if (s[i] == 0) return true;
        if (s[i] != 1 && st[i] != expected) return false;
        expected *= s[i];
    }
    return true;
}

Tensor Tensor::make_view(Shape shape, Strides strides, std::int64_t offset) const
{
    const TensorImpl& self = checked();
    auto impl = std::make_shared<TensorImpl>();
    impl->storage = self.storage;
    impl->shape = std::move(shape);
    impl->strides = std::move(strides);
    impl->offset = offset;
    impl->dtype = self.dtype;
    impl->requires_grad = self.requires_grad;
    return Tensor(std::move(impl));
}

// ---------------------------------------------------------------- views

Tensor Tensor::view(const Shape& requested) const
{
    const Shape new_shape = infer_size(requested, numel());
    const ViewStrides v = view_strides(shape(), strides(), new_shape);
    TINYAMP_CHECK(v.ok, shape, "view(", shape_str(requested), ") is not possible for a tensor of shape ", shape_str(shape()),
                  " with strides ", shape_str(strides()), ": its elements are not laid out so that one view covers them; "
                  "use .reshape(...) (which copies when needed) or call .contiguous() first");
    return make_view(new_shape, v.strides, storage_offset());
}

Tensor Tensor::reshape(const Shape& requested) const
{
    const Shape new_shape = infer_size(requested, numel());
    const ViewStrides v = view_strides(shape(), strides(), new_shape);
    if (v.ok) return make_view(new_shape, v.strides, storage_offset());
    return clone().view(new_shape);
}

Tensor Tensor::transpose(std::int64_t dim0, std::int64_t dim1) const
{
    if (dim() == 0) {  // as in PyTorch: transpose(0, 0) of a scalar is the scalar
        wrap_dim(dim0, 0);
        wrap_dim(dim1, 0);
        return make_view(shape(), strides(), storage_offset());
    }
    const std::size_t a = std::size_t(wrap_dim(dim0, dim())), b = std::size_t(wrap_dim(dim1, dim()));
    Shape s = shape();
    Strides st = strides();
    std::swap(s[a], s[b]);
    std::swap(st[a], st[b]);
    return make_view(s, st, storage_offset());
}

Tensor Tensor::t() const
{
    TINYAMP_CHECK(dim() <= 2, shape, "t() expects a tensor with at most 2 dimensions, got shape ", shape_str(shape()),
                  "; use transpose(dim0, dim1) or permute(...)");
    return dim() == 2 ? transpose(0, 1) : *this;
}

Tensor Tensor::permute(const std::vector<std::int64_t>& dims) const
{
    TINYAMP_CHECK(std::int64_t(dims.size()) == dim(), shape, "permute got ", dims.size(), " dims ", shape_str(dims),
                  " for a tensor with ", dim(), " dimensions (shape ", shape_str(shape()), "); name each dimension once");
    Shape s(dims.size());
    Strides st(dims.size());
    std::vector<bool> seen(dims.size(), false);
    for (std::size_t i = 0; i < dims.size(); ++i) {
        const std::size_t d = std::size_t(wrap_dim(dims[i], dim()));
        TINYAMP_CHECK(!seen[d], shape, "permute dims ", shape_str(dims), " repeat dimension ", d, "; name each dimension once");
        seen[d] = true;
        s[i] = shape()[d];
        st[i] = strides()[d];
    }
    return make_view(s, st, storage_offset());
}

Tensor Tensor::slice(std::int64_t d, std::int64_t start, std::int64_t end, std::int64_t step) const
{
    const std::size_t k = existing_dim(d, shape(), "slice");
    TINYAMP_CHECK(step > 0, value, "slice step must be positive, got ", step);
    const std::int64_t n = shape()[k];
    auto clamp = [n](std::int64_t i) { return std::clamp(i < 0 ? i + n : i, std::int64_t{0}, n); };
    start = clamp(start);
    end = std::max(clamp(end), start);
    Shape s = shape();
    Strides st = strides();
    s[k] = end == start ? 0 : (end - start - 1) / step + 1;  // no overflow for a huge step
    st[k] = strides()[k] * step;
    return make_view(s, st, storage_offset() + start * strides()[k]);
}

Tensor Tensor::narrow(std::int64_t d, std::int64_t start, std::int64_t length) const
{
    const std::size_t k = existing_dim(d, shape(), "narrow");
    const std::int64_t n = shape()[k];
    const std::int64_t begin = start < 0 ? start + n : start;
    TINYAMP_CHECK(begin >= 0 && length >= 0 && length <= n - begin, index, "narrow(dim=", d, ", start=", start, ", length=", length,
                  ") does not fit in a dimension of size ", n, " (shape ", shape_str(shape()), "); need 0 <= start and start + length <= ", n);
    return slice(d, begin, begin + length);
}

Tensor Tensor::select(std::int64_t d, std::int64_t index) const
{
    const std::size_t k = existing_dim(d, shape(), "select");
    index = wrap_index(index, shape()[k], std::int64_t(k));
    Shape s = shape();
    Strides st = strides();
    const std::int64_t offset = storage_offset() + index * st[k];
    s.erase(s.begin() + std::ptrdiff_t(k));
    st.erase(st.begin() + std::ptrdiff_t(k));
    return make_view(s, st, offset);
}

Tensor Tensor::unsqueeze(std::int64_t d) const
{
    const std::size_t k = std::size_t(wrap_dim(d, dim() + 1));
    Shape s = shape();
    Strides st = strides();
    const std::int64_t new_stride = k < s.size() ? s[k] * st[k] : 1;
    s.insert(s.begin() + std::ptrdiff_t(k), 1);
    st.insert(st.begin() + std::ptrdiff_t(k), new_stride);
    return make_view(s, st, storage_offset());
}

Tensor Tensor::squeeze(std::int64_t d) const
{
    // Always a new view (as in PyTorch), even when nothing is squeezed, so that renaming or
    // re-flagging the result never touches this tensor.
    if (dim() == 0) {
        wrap_dim(d, 0);  // only 0 and -1 name a scalar's (absent) dimension
        return make_view(shape(), strides(), storage_offset());
    }
    const std::size_t k = std::size_t(wrap_dim(d, dim()));
    if (shape()[k] != 1) return make_view(shape(), strides(), storage_offset());
    Shape s = shape();
    Strides st = strides();
    s.erase(s.begin() + std::ptrdiff_t(k));
    st.erase(st.begin() + std::ptrdiff_t(k));
    return make_view(s, st, storage_offset());
}

Tensor Tensor::expand(const Shape& target) const
{
    TINYAMP_CHECK(std::int64_t(target.size()) >= dim(), shape, "expand(", shape_str(target), ") has fewer dimensions than the tensor's shape ",
                  shape_str(shape()), "; expand can only add leading dimensions");
    const std::size_t lead = target.size() - shape().size();
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
        const std::int64_t have = shape()[i - lead];
        const std::int64_t want = target[i] == -1 ? have : target[i];
        TINYAMP_CHECK(want == have || have == 1, shape, "cannot expand shape ", shape_str(shape()), " to ", shape_str(target),
                      ": dimension ", i, " has size ", have, ", and only sizes of 1 can be expanded");
        s[i] = want;
        st[i] = want == have ? strides()[i - lead] : 0;
    }
    return make_view(s, st, storage_offset());
}

// ---------------------------------------------------------------- copies

Tensor Tensor::contiguous() const { return is_contiguous() ? *this : clone(); }

Tensor Tensor::clone() const
{
    Tensor out(new_impl(shape(), dtype(), device()));
    if (device().is_cpu()) {
        kernels::cpu::strided_copy(data_ptr(), shape().data(), strides().data(), int(dim()), element_size(), out.data_ptr());
    } else if (is_contiguous()) {
        cuda_memory::copy(out.data_ptr(), device(), data_ptr(), device(), nbytes());
    } else {
        // No CUDA gather kernel yet: gather on the host (correct; slow for big tensors).
        const Tensor gathered = cpu().contiguous();
        cuda_memory::copy(out.data_ptr(), device(), gathered.data_ptr(), Device::cpu(), nbytes());
    }
    out.impl_->requires_grad = requires_grad();
    return out;
}

Tensor Tensor::to(DType target) const
{
    if (target == dtype()) return *this;
    if (!device().is_cpu()) return cpu().to(target).to(device());  // converted on the host for now
    const Tensor src = contiguous();
    Tensor out(new_impl(shape(), target, device()));
    const std::int64_t bad = kernels::cpu::convert(src.data_ptr(), dtype(), out.data_ptr(), target, numel());
    if (bad >= 0) {
        const double value = src.to_vector()[std::size_t(bad)];
        TINYAMP_FAIL(value, "to(", dtype_name(target), "): element ", bad, " (flat index) is ", value, ", which has no ",
                     dtype_name(target), " value; replace NaN/inf or clamp the tensor to the target's range before converting");
    }
    return out;
}

Tensor Tensor::to(Device target) const
{
    if (target == device()) return *this;
    const Tensor src = contiguous();
    Tensor out(new_impl(shape(), dtype(), target));
    cuda_memory::copy(out.data_ptr(), target, src.data_ptr(), device(), nbytes());
    out.impl_->requires_grad = requires_grad();
    out.impl_->name = name();
    return out;
}

// ---------------------------------------------------------------- element access

void* Tensor::data_ptr() const
{
    const TensorImpl& self = checked();
    auto* base = static_cast<unsigned char*>(self.storage->data());
    if (base == nullptr) return nullptr;  // an empty storage (a view of it may still have an offset)
    return base + self.offset * dtype_size(self.dtype);
}

std::int64_t Tensor::element_offset(const std::int64_t* index, std::size_t count) const
{
    TINYAMP_CHECK(std::int64_t(count) == dim(), index, "index ", index_str(index, count), " has ", count, " coordinate",
                  count == 1 ? "" : "s", " but the tensor has ", dim(), " dimension", dim() == 1 ? "" : "s", " (shape ",
                  shape_str(shape()), "); give one index per dimension");
    std::int64_t offset = 0;
    for (std::size_t d = 0; d < count; ++d)
        offset += wrap_index(index[d], shape()[d], std::int64_t(d)) * strides()[d];
    return offset;
}

double Tensor::item() const
{
    TINYAMP_CHECK(numel() == 1, shape, "item() needs a tensor with exactly one element, got shape ", shape_str(shape()),
                  " (", numel(), " elements); index it with at({...}) or reduce it first");
    return at(std::vector<std::int64_t>(std::size_t(dim()), 0));
}

double Tensor::at(std::initializer_list<std::int64_t> index) const { return at(std::vector<std::int64_t>(index)); }
void Tensor::set(std::initializer_list<std::int64_t> index, double value) const { set(std::vector<std::int64_t>(index), value); }

double Tensor::at(const std::vector<std::int64_t>& index) const
{
    const std::int64_t offset = element_offset(index.data(), index.size());
    const void* element = static_cast<const unsigned char*>(data_ptr()) + offset * element_size();
    unsigned char host[8];
    if (!device().is_cpu()) {
        cuda_memory::copy(host, Device::cpu(), element, device(), element_size());
        element = host;
    }
    double value = 0;
    kernels::cpu::convert(element, dtype(), &value, DType::f64, 1);  // never fails: to f64
    return value;
}

void Tensor::set(const std::vector<std::int64_t>& index, double value) const
{
    const std::int64_t offset = element_offset(index.data(), index.size());
    void* element = static_cast<unsigned char*>(data_ptr()) + offset * element_size();
    unsigned char host[8];
    TINYAMP_CHECK(kernels::cpu::convert(&value, DType::f64, host, dtype(), 1) < 0, value, "set: ", value, " has no ",
                  dtype_name(dtype()), " value; store a finite number within the range of ", dtype_name(dtype()));
    if (device().is_cpu())
        std::copy(host, host + element_size(), static_cast<unsigned char*>(element));
    else
        cuda_memory::copy(element, device(), host, Device::cpu(), element_size());
}

std::vector<double> Tensor::to_vector() const
{
    const Tensor host = cpu().contiguous().to(DType::f64);
    const double* p = host.data_ptr<double>();
    return std::vector<double>(p, p + host.numel());
}

// ---------------------------------------------------------------- autograd flags, name

bool Tensor::requires_grad() const { return checked().requires_grad; }

const Tensor& Tensor::requires_grad_(bool requires_grad) const
{
    TINYAMP_CHECK(!requires_grad || is_floating_point(dtype()), dtype, "only floating point tensors can require gradients, but this tensor is ",
                  dtype_name(dtype()), "; convert it first, e.g. x.to(f32).requires_grad_()");
    checked().requires_grad = requires_grad;
    return *this;
}

const Tensor& Tensor::grad() const { return checked().grad; }
void Tensor::set_grad(const Tensor& grad) const { checked().grad = grad; }
const std::string& Tensor::name() const { return checked().name; }

const Tensor& Tensor::set_name(std::string name) const
{
    checked().name = std::move(name);
    return *this;
}

}  // namespace tinyamp
