#pragma once
/// \file
/// nn::Module, the base of every layer, as torch.nn.Module.
///
/// A module owns named parameters (leaf tensors that require grad: what the optimizer updates),
/// named buffers (state that is saved but not trained, such as BatchNorm's running mean) and
/// named child modules. Names nest with dots, as in PyTorch: a Sequential's first Linear has
/// "0.weight" and "0.bias", so a state_dict saved here loads into the same model written in
/// PyTorch.
///
/// \code
///     auto model = std::make_shared<nn::Sequential>(...);
///     optim::SGD opt(model->parameters(), {.lr = 0.05});
///     Tensor logits = (*model)(x);          // forward
///     model->eval();                        // Dropout off, BatchNorm uses running stats
/// \endcode
///
/// Parameters stay f32 (the master weights) unless you call to(dtype); under autocast the ops cast
/// them per call, and the cast cache keeps one low-precision copy per region.

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tinyamp/tensor/tensor.h"

namespace tinyamp::nn {

/// Points \p self at \p data's storage, shape, strides and dtype, keeping self's identity (its id,
/// name, grad flag, hooks and every handle to it), as PyTorch's `param.data = data`: Module::to
/// uses it so that optimizers made earlier still hold the module's parameters, and
/// distributed::FullyShardedDataParallel to point parameters at gathered shards and free them. No
/// autograd. Only for a leaf (Error(state)); a tensor that requires grad must get floating point
/// data (Error(dtype)).
void set_data(const Tensor& self, const Tensor& data);

/// (name, tensor) pairs in a fixed order: registration order, a module's own before its children's.
using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

/// The base of every layer, as torch.nn.Module: named parameters, buffers and children, the
/// train/eval switch, state_dict and load_state_dict, and to(dtype).
///
/// A subclass registers its tensors and children in its constructor (register_parameter,
/// register_buffer, register_module) and overrides forward() and type_name(). A module cannot be
/// copied: share it by `std::shared_ptr` (as register_module and Sequential take it).
class Module {
public:
    Module() = default;
    virtual ~Module() = default;
    Module(const Module&) = delete;  ///< a module is shared by handle (std::shared_ptr), never copied
    Module& operator=(const Module&) = delete;

    /// The computation for one input; every layer overrides it. Modules that take other inputs
    /// (the losses take input and target) define their own operator(); calling this one on them
    /// is an error: the base version throws Error(state).
    virtual Tensor forward(const Tensor& input);
    /// Calls forward(input): `(*model)(x)` is PyTorch's `model(x)` (there are no hooks). While a
    /// trace records, the ops it runs are marked with this module's path (trace::ModuleScope), so
    /// pictures can group them by layer; a parent calls its children this way, not by forward().
    Tensor operator()(const Tensor& input);

    /// The name this module has in its parent ("0", "attn"), as in the parent's named_children();
    /// "" for a module no parent registered (the model itself). A module registered under two
    /// parents keeps the last name it was given.
    const std::string& name() const { return name_; }

    /// The class name as PyTorch prints it: "Linear", "Sequential".
    virtual std::string type_name() const = 0;
    /// What goes inside the parentheses when printed, as PyTorch's extra_repr(): for a Linear,
    /// "in_features=64, out_features=256, bias=True". Empty by default.
    virtual std::string extra_repr() const { return {}; }
    /// PyTorch's repr: the module, its settings and its children, indented.
    std::string to_string() const;

    /// Every parameter of this module and its children, named by dotted path ("0.weight"), a
    /// module's own before its children's; as torch.nn.Module.named_parameters().
    NamedTensors named_parameters() const;
    /// The tensors of named_parameters(), in the same order: what an optimizer takes.
    std::vector<Tensor> parameters() const;
    /// Every buffer of this module and its children, named by dotted path ("1.running_mean").
    NamedTensors named_buffers() const;
    /// The tensors of named_buffers(), in the same order.
    std::vector<Tensor> buffers() const;
    /// The direct children (not their children) with their names, in registration order.
    const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& named_children() const { return children_; }
    /// Number of parameter elements (weights), summed over the whole tree.
    std::int64_t num_parameters() const;

    /// Parameters and buffers, each module's own first, then its children's: what a checkpoint saves.
    /// The tensors are the module's own (not copies): save or clone them before changing them.
    /// As torch.nn.Module.state_dict().
    NamedTensors state_dict() const;
    /// Copies `state` into this module's parameters and buffers (converted to their dtypes), all or
    /// nothing: every name and shape is checked first, and any mismatch throws with PyTorch's
    /// "Error(s) in loading state_dict for ..." listing and changes nothing. With strict=false,
    /// missing and unexpected names are allowed (shape mismatches still throw). The errors are
    /// Error(value), as are an undefined tensor or a name given twice in `state`. The copy runs
    /// without autograd.
    void load_state_dict(const NamedTensors& state, bool strict = true);

    /// Training mode (the default) or evaluation mode, for this module and all its children, as
    /// torch.nn.Module.train(). Returns this module.
    Module& train(bool mode = true);
    /// Evaluation mode: train(false), as torch.nn.Module.eval(). Returns this module.
    Module& eval() { return train(false); }
    /// True in training mode (PyTorch's `module.training`).
    bool is_training() const { return training_; }

    /// Converts every floating point parameter, buffer and gradient to `dtype`, in place: the
    /// tensors keep their identity, so an optimizer made earlier still updates them. (For mixed
    /// precision, keep f32 parameters and use amp::autocast instead; to(f16) makes a pure f16 model.)
    /// Integer buffers (BatchNorm's num_batches_tracked) stay as they are. A dtype that is not
    /// floating point throws Error(dtype). Returns this module.
    Module& to(DType dtype);
    /// Drops every parameter's gradient (set to none), as Optimizer::zero_grad does.
    void zero_grad();

protected:
    /// Makes `value` a parameter named `name`: a leaf that requires grad, labelled `name` for traces.
    /// Returns the same tensor. Error(value) for an empty or dotted name, a name already taken,
    /// or a tensor that is undefined or not a leaf.
    Tensor register_parameter(const std::string& name, Tensor value);
    /// Adds state that is saved and converted with the module but not trained (running statistics).
    /// Returns the same tensor. Error(value) for a bad or taken name or an undefined tensor.
    Tensor register_buffer(const std::string& name, Tensor value);
    /// Adds a child; its parameters' and buffers' labels get the prefix "name." so traces show "0.weight".
    /// Returns `module`. Error(value) for a bad or taken name or a null module.
    template <class M>
    std::shared_ptr<M> register_module(const std::string& name, std::shared_ptr<M> module)
    {
        add_child(name, module);
        return module;
    }
    /// Booleans as Python prints them (True/False), for extra_repr.
    static std::string py_bool(bool value) { return value ? "True" : "False"; }
    /// Floats as Python's repr prints them (0.1, 1e-05, 1.0), for extra_repr.
    static std::string py_float(double value);

private:
    void add_child(const std::string& name, const std::shared_ptr<Module>& module);
    void check_new_name(const std::string& name) const;
    void collect(const std::string& prefix, bool parameters, bool buffers, NamedTensors& out) const;

    NamedTensors parameters_;
    NamedTensors buffers_;
    std::vector<std::pair<std::string, std::shared_ptr<Module>>> children_;
    bool training_ = true;
    std::string name_;  // in the parent; see name()
};

}  // namespace tinyamp::nn
