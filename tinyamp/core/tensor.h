#pragma once
// Tensor: a handle to an n-dimensional view of shared storage. Copying a Tensor copies the
// handle, not the data (as in PyTorch): views such as transpose or slice share storage and
// differ only in shape, strides and offset.

#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "tinyamp/core/device.h"
#include "tinyamp/core/dtype.h"
#include "tinyamp/core/error.h"
#include "tinyamp/core/shape.h"
#include "tinyamp/core/storage.h"

namespace tinyamp {

struct TensorImpl;
class Node;

class Tensor {
public:
    Tensor() = default;  ///< an undefined tensor (like a null handle); most calls on it throw
    explicit Tensor(std::shared_ptr<TensorImpl> impl);

    bool defined() const { return impl_ != nullptr; }
    /// True when both handles refer to the same tensor (not just equal values).
    bool is_same(const Tensor& other) const { return impl_ == other.impl_; }

    // ---- layout ----
    const Shape& shape() const;
    std::int64_t dim() const;
    std::int64_t size(std::int64_t dim) const;  ///< negative dims count from the end
    std::int64_t numel() const;
    const Strides& strides() const;
    std::int64_t stride(std::int64_t dim) const;
    std::int64_t storage_offset() const;  ///< in elements
    DType dtype() const;
    Device device() const;
    std::int64_t element_size() const { return dtype_size(dtype()); }
    std::int64_t nbytes() const { return numel() * element_size(); }
    bool is_contiguous() const;
    /// True for the result of a view op (view, transpose, slice, ...), which shares another
    /// tensor's storage. Autocast never caches casts of views.
    bool is_view() const;
    /// A process-unique number for this tensor (not its storage): traces name tensors by it.
    std::uint64_t id() const;
    const std::shared_ptr<Storage>& storage() const;
    bool shares_storage_with(const Tensor& other) const;

    // ---- views (no copy; the result shares this tensor's storage) ----
    /// Needs a layout that allows it; otherwise throws and suggests reshape. One size may be -1.
    Tensor view(const Shape& shape) const;
    /// A view when the layout allows it, else a contiguous copy.
    Tensor reshape(const Shape& shape) const;
    Tensor transpose(std::int64_t dim0, std::int64_t dim1) const;
    Tensor t() const;  ///< transpose of a 2-D tensor (1-D and 0-D come back as they are)
    Tensor permute(const std::vector<std::int64_t>& dims) const;
    /// Elements start, start+step, ... below end along `dim`; start/end are clamped like Python's.
    Tensor slice(std::int64_t dim, std::int64_t start, std::int64_t end, std::int64_t step = 1) const;
    Tensor narrow(std::int64_t dim, std::int64_t start, std::int64_t length) const;
    Tensor select(std::int64_t dim, std::int64_t index) const;  ///< drops `dim`
    Tensor unsqueeze(std::int64_t dim) const;
    Tensor squeeze(std::int64_t dim) const;  ///< only if that size is 1; otherwise the same shape
    /// Broadcast view: sizes of 1 (or new leading dims) repeat with stride 0; -1 keeps a size.
    Tensor expand(const Shape& shape) const;

    // ---- copies ----
    /// This tensor if already contiguous, else a contiguous copy.
    Tensor contiguous() const;
    Tensor clone() const;  ///< always a new contiguous copy
    /// This tensor if it already has `dtype`, else a converted copy (round to nearest even).
    Tensor to(DType dtype) const;
    Tensor to(Device device) const;
    Tensor cpu() const { return to(Device::cpu()); }
    Tensor cuda(int index = 0) const { return to(Device::cuda(index)); }

    // ---- element access (for tests, lessons and printing; not for hot loops) ----
    double item() const;  ///< the value of a one-element tensor
    double at(std::initializer_list<std::int64_t> index) const;
    double at(const std::vector<std::int64_t>& index) const;
    /// Stores `value` rounded to this tensor's dtype (an in-place write: see copy_).
    void set(std::initializer_list<std::int64_t> index, double value) const;
    void set(const std::vector<std::int64_t>& index, double value) const;
    std::vector<double> to_vector() const;  ///< every element, row-major, as double
    /// Overwrites this tensor's elements with `src` (broadcast and converted), in place, as
    /// optimizers update weights. Refused on a tensor that requires grad while grad mode is on
    /// (do it under NoGradGuard), and noticed by backward if the old values were saved for it.
    const Tensor& copy_(const Tensor& src) const;
    void* data_ptr() const;                  ///< the first element (storage + offset)
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
    void backward(const Tensor& gradient = Tensor(), bool retain_graph = false, bool create_graph = false) const;
    /// Marks this tensor for gradients; only floating point tensors can have them.
    const Tensor& requires_grad_(bool requires_grad = true) const;
    /// The accumulated gradient (undefined until a backward pass writes one).
    const Tensor& grad() const;
    void set_grad(const Tensor& grad) const;
    /// A label for pictures and traces ("w1", "x"); empty by default.
    const std::string& name() const;
    const Tensor& set_name(std::string name) const;

    /// "tensor([[1, 2], [3, 4]], dtype=f32, shape=[2, 2])": values in the shortest form that
    /// reads back to the same value of this dtype.
    std::string to_string() const;

    const std::shared_ptr<TensorImpl>& impl() const { return impl_; }

private:
    TensorImpl& checked() const;
    std::int64_t element_offset(const std::int64_t* index, std::size_t count) const;
    void check_in_place_allowed(const char* what) const;

    std::shared_ptr<TensorImpl> impl_;
};

/// What a Tensor handle points to. Later floors add autograd fields here.
/// A number no other tensor of this process has (traces and the cast cache refer to tensors by it).
std::uint64_t next_tensor_id();

struct TensorImpl {
    std::uint64_t id = next_tensor_id();
    std::shared_ptr<Storage> storage;
    Shape shape;
    Strides strides;
    std::int64_t offset = 0;  // in elements
    DType dtype = DType::f32;
    bool requires_grad = false;          // set on leaves by requires_grad_()
    Tensor grad;
    std::string name;
    std::shared_ptr<Node> grad_fn;       // the op that made this tensor, when recorded
    std::weak_ptr<Node> grad_accumulator;  // leaves: the node adding into .grad (made on first use)
    bool is_view = false;                // made by a view op from another tensor's storage
};

std::ostream& operator<<(std::ostream& out, const Tensor& tensor);

}  // namespace tinyamp
