#pragma once
/// \file
/// Tensor: a handle to an n-dimensional view of shared storage.
///
/// Copying a Tensor copies the handle, not the data (as in PyTorch): views such as transpose or
/// slice share storage and differ only in shape, strides and offset.
///
/// Declared here, defined on three floors (docs/architecture.md): the data and element methods in
/// tensor/tensor.cpp; the graph's (requires_grad_, grad_fn_name) in autograd/node.cpp; the op
/// methods (view, transpose, to, clone, ...) with the ops, in ops/view_ops.cpp, above the
/// dispatcher. Code in tinyamp/tensor/ and the folders below the dispatcher calls none of the op
/// methods (scripts/check_floor_links.py holds it, on the compiled objects): it uses layout.h.

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tinyamp/values/device.h"
#include "tinyamp/values/dtype.h"
#include "tinyamp/support/error.h"
#include "tinyamp/values/shape.h"
#include "tinyamp/tensor/storage.h"

namespace tinyamp {

struct TensorImpl;
class Node;

/// An n-dimensional array of one dtype on one device, with autograd: tinyamp's torch.Tensor.
///
/// A Tensor is a handle (a shared pointer to a TensorImpl): copying it copies the handle, and
/// all copies see the same tensor. Make tensors with the factories (tensor(), zeros(), rand(), ...)
/// or with ops. The methods that make tensors (view, transpose, to, clone, ...) are ops: they go
/// through dispatch(), so autograd records them and traces list them; the views and copies keep
/// the dtype, only to(DType) changes it. Reading and writing elements (item, at, set, copy_) is
/// not an op. Most calls on an undefined tensor throw Error (ErrorKind::state).
class Tensor {
public:
    Tensor() = default;  ///< an undefined tensor (like a null handle); most calls on it throw
    /// Wraps an implementation (factories and layout functions make them).
    explicit Tensor(std::shared_ptr<TensorImpl> impl);

    bool defined() const { return impl_ != nullptr; }  ///< false for an undefined tensor
    /// True when both handles refer to the same tensor (not just equal values).
    bool is_same(const Tensor& other) const { return impl_ == other.impl_; }

    // ---- layout ----
    const Shape& shape() const;  ///< the size of each dimension (`{}` for a scalar)
    std::int64_t dim() const;  ///< the number of dimensions (0 for a scalar)
    /// The size of dimension \p dim; negative dims count from the end. Error(index) for a dim out
    /// of range, and on a 0-D tensor (which has no dimension).
    std::int64_t size(std::int64_t dim) const;
    std::int64_t numel() const;  ///< the number of elements (1 for a scalar)
    const Strides& strides() const;  ///< the stride of each dimension, in elements
    std::int64_t stride(std::int64_t dim) const;  ///< the stride of one dimension, in elements (checked as size())
    std::int64_t storage_offset() const;  ///< in elements
    DType dtype() const;  ///< the element type
    Device device() const;  ///< where the storage lives
    std::int64_t element_size() const { return dtype_size(dtype()); }  ///< bytes per element
    std::int64_t nbytes() const { return numel() * element_size(); }  ///< bytes of the elements viewed (numel * element_size)
    /// True when the elements lie in row-major order without gaps (sizes of 1 may have any
    /// stride; an empty tensor is contiguous).
    bool is_contiguous() const;
    /// True for the result of a view op (view, transpose, slice, ...), which shares another
    /// tensor's storage. Autocast never caches casts of views.
    bool is_view() const;
    /// A process-unique number for this tensor (not its storage): traces name tensors by it.
    std::uint64_t id() const;
    const std::shared_ptr<Storage>& storage() const;  ///< the memory, shared with its views
    /// True when both use the same Storage (a tensor and its views, or its detach()).
    bool shares_storage_with(const Tensor& other) const;

    // ---- views (no copy; the result shares this tensor's storage) ----
    /// The same elements with another shape (torch.Tensor.view). Needs a layout that allows it;
    /// otherwise throws Error(shape) and suggests reshape. One size may be -1.
    Tensor view(const Shape& shape) const;
    /// A view when the layout allows it, else a contiguous copy (torch.reshape).
    Tensor reshape(const Shape& shape) const;
    /// A view with dimensions \p dim0 and \p dim1 swapped (torch.transpose).
    Tensor transpose(std::int64_t dim0, std::int64_t dim1) const;
    Tensor t() const;  ///< transpose of a 2-D tensor (1-D and 0-D come back as they are)
    /// A view with the dimensions reordered: dimension i of the result is dims[i] of this one
    /// (torch.permute).
    Tensor permute(const std::vector<std::int64_t>& dims) const;
    /// Elements start, start+step, ... below end along `dim`; start/end are clamped like Python's
    /// `x[start:end:step]`; step must be positive (Error(value)).
    Tensor slice(std::int64_t dim, std::int64_t start, std::int64_t end, std::int64_t step = 1) const;
    /// A view of \p length elements from \p start along \p dim (torch.narrow); Error(index)
    /// when they do not fit.
    Tensor narrow(std::int64_t dim, std::int64_t start, std::int64_t length) const;
    Tensor select(std::int64_t dim, std::int64_t index) const;  ///< the view at \p index along \p dim, which it drops
    Tensor unsqueeze(std::int64_t dim) const;  ///< a view with a new dimension of size 1 at \p dim
    Tensor squeeze(std::int64_t dim) const;  ///< only if that size is 1; otherwise the same shape
    /// Broadcast view: sizes of 1 (or new leading dims) repeat with stride 0; -1 keeps a size.
    Tensor expand(const Shape& shape) const;

    // ---- copies ----
    /// This tensor if already contiguous, else a contiguous copy.
    Tensor contiguous() const;
    Tensor clone() const;  ///< always a new contiguous copy
    /// This tensor if it already has `dtype`, else a converted copy (round to nearest even).
    /// The conversion is the op "to", the one autocast's casts use too: its backward converts the
    /// gradient back to this tensor's dtype. To i64, floats truncate toward zero; NaN, inf or an
    /// out-of-range value there throws Error(value). (torch.Tensor.to)
    Tensor to(DType dtype) const;
    /// This tensor if it is already on \p device, else a copy there (the op "to_device"; its
    /// backward moves the gradient back). Error(device) when the device cannot be used.
    Tensor to(Device device) const;
    Tensor cpu() const { return to(Device::cpu()); }  ///< to(Device::cpu())
    Tensor cuda(int index = 0) const { return to(Device::cuda(index)); }  ///< to(Device::cuda(index))

    // ---- element access (for tests, lessons and printing; not for hot loops) ----
    double item() const;  ///< the value of a one-element tensor, as double (Error(shape) otherwise)
    /// The element at \p index (one index per dimension; negative ones count from the end), as
    /// double: `x.at({1, 2})`. Error(index) for a wrong count or an index out of range.
    double at(std::initializer_list<std::int64_t> index) const;
    double at(const std::vector<std::int64_t>& index) const;  ///< the same, with the index in a vector
    /// Stores `value` rounded to this tensor's dtype at \p index (checked as at()). An in-place
    /// write: it bumps the storage's version like copy_, so backward notices if the old value was
    /// saved, but it does not check grad mode. Error(value) if \p value has no value in the dtype.
    void set(std::initializer_list<std::int64_t> index, double value) const;
    void set(const std::vector<std::int64_t>& index, double value) const;  ///< the same, with the index in a vector
    std::vector<double> to_vector() const;  ///< every element, row-major, as double
    /// Overwrites this tensor's elements with `src` (broadcast and converted), in place, as
    /// optimizers update weights (torch.Tensor.copy_). Refused with Error(state) on a tensor that
    /// requires grad while grad mode is on (do it under NoGradGuard), and noticed by backward if
    /// the old values were saved for it. Returns this tensor.
    const Tensor& copy_(const Tensor& src) const;
    void* data_ptr() const;                  ///< the first element (storage + offset)
    /// The first element as a `T*`; T must be this tensor's element type (see element_t), else
    /// Error(dtype): `x.data_ptr<float>()` on an f32 tensor.
    template <class T>
    T* data_ptr() const
    {
        TINYAMP_CHECK(dtype_of<T>() == dtype(), dtype, "data_ptr<", dtype_name(dtype_of<T>()), "> called on a ",
                      dtype_name(dtype()), " tensor; ask for data_ptr<", dtype_name(dtype()), "'s element type> or convert with .to(",
                      dtype_name(dtype_of<T>()), ")");
        return static_cast<T*>(data_ptr());
    }

    // ---- autograd ----
    /// True for a leaf marked with requires_grad_() and for every result computed from one.
    bool requires_grad() const;
    /// True unless an op recorded in the graph made this tensor.
    bool is_leaf() const;
    /// The graph node that made this tensor (null for leaves and for results of no-grad code).
    const std::shared_ptr<Node>& grad_fn() const;
    std::string grad_fn_name() const;  ///< the node's op name, or "" for a leaf
    /// The same data, cut from the graph: no grad_fn, requires_grad false, storage shared.
    Tensor detach() const;
    /// Backpropagates from this tensor into the .grad of every leaf that requires grad. The
    /// gradient may be left out for a one-element tensor (it is then 1).
    /// As torch.Tensor.backward: backward runs with autocast off, each op's backward in the dtypes
    /// its forward used, and each gradient is converted to the dtype of the tensor it belongs to.
    /// \p retain_graph keeps the saved tensors for a second backward; \p create_graph records the
    /// backward ops too (for gradients of gradients). Throws Error(state) if this tensor does not
    /// require grad, Error(shape) for a missing gradient on a tensor with more than one element
    /// or a gradient of another shape.
    void backward(const Tensor& gradient = Tensor(), bool retain_graph = false, bool create_graph = false) const;
    /// Marks this tensor for gradients; only floating point tensors can have them (Error(dtype)),
    /// and only a leaf's flag can be turned off (Error(state)). Returns this tensor.
    const Tensor& requires_grad_(bool requires_grad = true) const;
    /// The accumulated gradient (undefined until a backward pass writes one). Backward writes it
    /// in this tensor's dtype: an f32 weight used in bf16 under autocast gets an f32 .grad.
    const Tensor& grad() const;
    /// Replaces .grad; an undefined Tensor clears it (as the optimizers' zero_grad does).
    void set_grad(const Tensor& grad) const;
    /// Calls \p hook with this leaf after each backward pass has added into its .grad (PyTorch's
    /// Tensor.register_post_accumulate_grad_hook): the moment data-parallel training sends a
    /// gradient to the other processes. Only for leaves that require grad (else Error(state)). The
    /// hook runs on the thread running backward, after the gradient is stored; it may read and
    /// replace .grad. Returns a number that remove_post_accumulate_grad_hook takes.
    int register_post_accumulate_grad_hook(std::function<void(const Tensor&)> hook) const;
    /// Removes a hook registered on this tensor; an unknown number is ignored.
    void remove_post_accumulate_grad_hook(int handle) const;
    /// A label for pictures and traces ("w1", "x"); empty by default.
    const std::string& name() const;
    /// Sets name() and returns this tensor: `w.set_name("w1")`.
    const Tensor& set_name(std::string name) const;

    /// "tensor([[1, 2], [3, 4]], dtype=f32, shape=[2, 2])": values in the shortest form that
    /// reads back to the same value of this dtype.
    std::string to_string() const;

    const std::shared_ptr<TensorImpl>& impl() const { return impl_; }  ///< the shared implementation (for the library's own floors)

private:
    TensorImpl& checked() const;
    std::int64_t element_offset(const std::int64_t* index, std::size_t count) const;
    void check_in_place_allowed(const char* what) const;

    std::shared_ptr<TensorImpl> impl_;
};

/// A number no other tensor of this process has (traces and the cast cache refer to tensors by it).
std::uint64_t next_tensor_id();

/// What a Tensor handle points to. The autograd fields (grad, grad_fn, grad_accumulator) are
/// used by the folders above tensor/ (autograd/, engine/).
struct TensorImpl {
    std::uint64_t id = next_tensor_id();  ///< this tensor's process-unique number (Tensor::id)
    std::shared_ptr<Storage> storage;  ///< the memory, shared with views
    Shape shape;  ///< the size of each dimension
    Strides strides;  ///< in elements
    std::int64_t offset = 0;  ///< in elements
    DType dtype = DType::f32;  ///< the element type
    bool requires_grad = false;          ///< set on leaves by requires_grad_()
    Tensor grad;  ///< the accumulated gradient (undefined until backward writes one)
    std::string name;  ///< a label for pictures and traces
    std::shared_ptr<Node> grad_fn;       ///< the op that made this tensor, when recorded
    std::weak_ptr<Node> grad_accumulator;  ///< leaves: the node adding into .grad (made on first use)
    bool is_view = false;                ///< made by a view op from another tensor's storage
    /// Leaves: register_post_accumulate_grad_hook's hooks, by number, in registration order.
    std::vector<std::pair<int, std::function<void(const Tensor&)>>> post_accumulate_grad_hooks;
};

std::ostream& operator<<(std::ostream& out, const Tensor& tensor);  ///< writes tensor.to_string()

}  // namespace tinyamp
