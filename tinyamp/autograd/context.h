#pragma once
/// \file
/// `Context`: what an op's forward leaves for its backward (PyTorch's `ctx`), and the flags of
/// which inputs need a gradient. The autograd layer gives one to every op it runs.

#include <algorithm>
#include <any>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tinyamp/values/small_vector.h"
#include "tinyamp/tensor/tensor.h"

namespace tinyamp {

/// One flag per tensor argument of an op (inline: ops take a few tensors).
using InputFlags = SmallVector<bool, 8>;

/// What forward leaves for backward: tensors (save_for_backward) and other values (save/get);
/// PyTorch's ctx. When the op is not recorded (no input needs a gradient, or grad mode is off)
/// nobody will run its backward, so save and save_for_backward keep nothing: a forward must not
/// read back what it saved.
class Context {
public:
    /// Keeps `tensors` for backward (replacing what was saved before), with their storage
    /// versions so that saved_tensors() can tell if one was changed in place.
    void save_for_backward(std::vector<Tensor> tensors);
    /// The tensors save_for_backward() kept. Throws Error(state) once a backward without
    /// retain_graph has freed them, or if one of them was overwritten in place (copy_, set) after
    /// it was saved.
    const std::vector<Tensor>& saved_tensors() const;
    /// Whether the i-th tensor argument of forward needs a gradient (skip work when it does not).
    bool needs_input_grad(std::size_t i) const;

    /// Keeps any other value (a dtype, a flag, a shape) under `key`, replacing an earlier one.
    template <class V>
    void save(std::string_view key, V value)  // a view: an unrecorded op builds no string
    {
        if (!recorded_) return;
        if (const auto it = find(key); it != data_.end()) {
            it->second = std::move(value);
            return;
        }
        if (data_.empty()) data_.reserve(4);  // ops save a few values: one allocation for all of them
        data_.emplace_back(std::string(key), std::move(value));
    }
    /// The value saved under `key`, as exactly the type V it was saved with. Throws Error(state)
    /// when nothing was saved under `key` or it was saved with another type.
    template <class V>
    const V& get(std::string_view key) const
    {
        const auto it = find(key);
        TINYAMP_CHECK(it != data_.end(), state, "op '", op_name_, "': nothing was saved under '", key, "' in forward; call ctx.save(\"", key,
                      "\", value) there");
        const V* value = std::any_cast<V>(&it->second);
        TINYAMP_CHECK(value != nullptr, state, "op '", op_name_, "': '", key, "' was saved with another type than the one asked for");
        return *value;
    }

    /// Used by the autograd layer: the op's name (for error messages), which inputs need a
    /// gradient, and whether the op is recorded (if not, save and save_for_backward keep nothing).
    void set_op(const char* name, InputFlags needs_input_grad, bool recorded = true);
    /// Frees the saved tensors (after a backward without retain_graph); saved_tensors() then throws.
    void release();

private:
    std::vector<Tensor> saved_;
    SmallVector<std::uint64_t, 4> saved_versions_;  // storage versions at save time
    // A few (key, value) pairs, searched in order: cheaper than a map for the handful an op saves.
    using Entries = std::vector<std::pair<std::string, std::any>>;
    Entries::iterator find(std::string_view key) { return std::find_if(data_.begin(), data_.end(), [&](const auto& e) { return e.first == key; }); }
    Entries::const_iterator find(std::string_view key) const
    {
        return std::find_if(data_.begin(), data_.end(), [&](const auto& e) { return e.first == key; });
    }
    Entries data_;
    InputFlags needs_input_grad_;
    const char* op_name_ = "";
    bool released_ = false;
    bool recorded_ = true;
};

}  // namespace tinyamp
