#pragma once
// Function<T>: an op with a forward and a backward, PyTorch's torch.autograd.Function in C++.
// Every built-in op is one too, so user code and tinyamp's ops take the same road through the
// dispatcher (autocast -> autograd -> kernel).
//
//   struct Square : Function<Square> {
//       static constexpr const char* name = "square";
//       static Tensor forward(Context& ctx, const Tensor& x) {
//           ctx.save_for_backward({x});
//           return mul(x, x);
//       }
//       static std::vector<Tensor> backward(Context& ctx, const Tensor& grad) {
//           const Tensor& x = ctx.saved_tensors()[0];
//           return {mul(grad, mul(x, 2.0))};  // one gradient per tensor argument of forward
//       }
//   };
//   Tensor y = Square::apply(x);

#include <any>
#include <map>
#include <string>
#include <vector>

#include "tinyamp/core/tensor.h"

namespace tinyamp {

/// What forward leaves for backward: tensors (save_for_backward) and other values (save/get).
class Context {
public:
    void save_for_backward(std::vector<Tensor> tensors);
    /// Throws once a backward without retain_graph has freed them, or if one of them was
    /// overwritten in place (copy_, set) after it was saved.
    const std::vector<Tensor>& saved_tensors() const;
    /// Whether the i-th tensor argument of forward needs a gradient (skip work when it does not).
    bool needs_input_grad(std::size_t i) const;

    template <class V>
    void save(const std::string& key, V value)
    {
        data_[key] = std::move(value);
    }
    template <class V>
    const V& get(const std::string& key) const
    {
        const auto it = data_.find(key);
        TINYAMP_CHECK(it != data_.end(), state, "op '", op_name_, "': nothing was saved under '", key, "' in forward; call ctx.save(\"", key,
                      "\", value) there");
        const V* value = std::any_cast<V>(&it->second);
        TINYAMP_CHECK(value != nullptr, state, "op '", op_name_, "': '", key, "' was saved with another type than the one asked for");
        return *value;
    }

    // Used by the autograd layer.
    void set_op(const char* name, std::vector<bool> needs_input_grad);
    void release();

private:
    std::vector<Tensor> saved_;
    std::vector<std::uint64_t> saved_versions_;  // storage versions at save time
    std::map<std::string, std::any> data_;
    std::vector<bool> needs_input_grad_;
    const char* op_name_ = "";
    bool released_ = false;
};

template <class Op, class... Args>
Tensor dispatch(const Args&... args);

/// Derive from Function<YourOp> to get YourOp::apply(args...), which runs through the dispatcher.
template <class Op>
struct Function {
    template <class... Args>
    static Tensor apply(const Args&... args)
    {
        return dispatch<Op>(args...);
    }
};

}  // namespace tinyamp
