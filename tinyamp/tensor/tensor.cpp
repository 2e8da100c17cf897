#include "tinyamp/tensor/tensor.h"

#include <algorithm>
#include <atomic>

#include "kernels/cpu/convert.h"
#include "kernels/cpu/strided_copy.h"
#include "tinyamp/tensor/cuda_memory.h"
#include "tinyamp/support/grad_mode.h"
#include "tinyamp/tensor/layout.h"

namespace tinyamp {
namespace {

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

std::uint64_t next_tensor_id()
{
    static std::atomic<std::uint64_t> counter{0};
    return ++counter;
}

Tensor::Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}
bool Tensor::is_view() const { return checked().is_view; }
std::uint64_t Tensor::id() const { return checked().id; }

TensorImpl& Tensor::checked() const
{
    TINYAMP_CHECK(impl_ != nullptr, state, "this Tensor is undefined (default-constructed or moved from); "
                                           "create one with a factory such as tinyamp::zeros(shape)");
    return *impl_;
}

// Nearly every function calls shape(): its caller graph would be too big for Doxygen to draw.
/// \hidecallergraph
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
    storage()->bump_version();
}

const Tensor& Tensor::copy_(const Tensor& src) const
{
    check_in_place_allowed("copy_");
    layout::copy_into(*this, src);
    storage()->bump_version();
    return *this;
}

void Tensor::check_in_place_allowed(const char* what) const
{
    TINYAMP_CHECK(!(requires_grad() && is_grad_enabled()), state, what, " on a tensor that requires grad while grad mode is on would ",
                  "change values the graph may need; do it inside a NoGradGuard scope (as optimizers do), or on x.detach()");
}

std::vector<double> Tensor::to_vector() const
{
    const Tensor host = layout::convert(layout::contiguous(layout::to_device(*this, Device::cpu())), DType::f64);
    const double* p = host.data_ptr<double>();
    return std::vector<double>(p, p + host.numel());
}

// ---------------------------------------------------------------- autograd flags, name

bool Tensor::requires_grad() const { return checked().requires_grad || checked().grad_fn != nullptr; }
bool Tensor::is_leaf() const { return checked().grad_fn == nullptr; }
const std::shared_ptr<Node>& Tensor::grad_fn() const { return checked().grad_fn; }

Tensor Tensor::detach() const
{
    Tensor alias = layout::as_strided(*this, shape(), strides(), storage_offset());
    alias.impl_->name = name();
    alias.impl_->is_view = is_view();  // detaching does not make a view of a non-view
    return alias;
}

const Tensor& Tensor::grad() const { return checked().grad; }
void Tensor::set_grad(const Tensor& grad) const { checked().grad = grad; }

int Tensor::register_post_accumulate_grad_hook(std::function<void(const Tensor&)> hook) const
{
    TensorImpl& impl = checked();
    TINYAMP_CHECK(impl.requires_grad && !impl.grad_fn, state,
                  "register_post_accumulate_grad_hook: only a leaf that requires grad accumulates a gradient; this tensor is ",
                  impl.grad_fn ? "the output of an op" : "not marked with requires_grad_()");
    TINYAMP_CHECK(static_cast<bool>(hook), value, "register_post_accumulate_grad_hook: the hook is empty");
    const int handle = impl.post_accumulate_grad_hooks.empty() ? 1 : impl.post_accumulate_grad_hooks.back().first + 1;
    impl.post_accumulate_grad_hooks.emplace_back(handle, std::move(hook));
    return handle;
}

void Tensor::remove_post_accumulate_grad_hook(int handle) const
{
    auto& hooks = checked().post_accumulate_grad_hooks;
    std::erase_if(hooks, [handle](const auto& entry) { return entry.first == handle; });
}
const std::string& Tensor::name() const { return checked().name; }

const Tensor& Tensor::set_name(std::string name) const
{
    checked().name = std::move(name);
    return *this;
}

}  // namespace tinyamp
