#pragma once
/// \file
/// `Context`: what an op's forward leaves for its backward (PyTorch's `ctx`), and the flags of
/// which inputs need a gradient; `ContextWith<Saved>` adds the op's own typed values. The
/// autograd layer gives one to every op it runs.

#include <concepts>
#include <vector>

#include "tinyamp/values/small_vector.h"
#include "tinyamp/tensor/tensor.h"

namespace tinyamp {

/// One flag per tensor argument of an op (inline: ops take a few tensors).
using InputFlags = SmallVector<bool, 8>;

/// The autocast state a custom_fwd forward ran in, for its custom_bwd backward (PyTorch keeps the
/// same two fields on ctx: `_dtype`, `_fwd_used_autocast`).
struct AutocastAtForward {
    DType dtype = DType::f32;    ///< the autocast dtype of the device type custom_fwd names
    bool used_autocast = false;  ///< whether forward ran under autocast (and without cast_inputs)
};

/// What forward leaves for backward: the tensors (save_for_backward), the flags of which inputs
/// need a gradient; PyTorch's ctx. Values other than tensors go in a struct the op declares, as
/// `Saved`, and reaches as `ctx.saved` (ContextWith below). When the op is not recorded (no input
/// needs a gradient, or grad mode is off) nobody will run its backward, so save_for_backward keeps
/// nothing: a forward must not read back what it saved.
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
    /// Whether backward will run: the op was recorded in the graph.
    bool recorded() const { return recorded_; }

    /// Set by custom_fwd (amp/custom_function.h), read by custom_bwd.
    AutocastAtForward autocast_at_forward;

    /// Used by the autograd layer: the op's name (for error messages), which inputs need a
    /// gradient, and whether the op is recorded (if not, save_for_backward keeps nothing).
    void set_op(const char* name, InputFlags needs_input_grad, bool recorded = true);
    /// Frees the saved tensors (after a backward without retain_graph); saved_tensors() then throws.
    void release();

private:
    std::vector<Tensor> saved_;
    SmallVector<std::uint64_t, 4> saved_versions_;  // storage versions at save time
    InputFlags needs_input_grad_;
    const char* op_name_ = "";
    bool released_ = false;
    bool recorded_ = true;
};

/// The context of an op that keeps values besides tensors: `saved` is the op's own struct, so
/// backward reads back exactly what forward stored, by name and type, checked by the compiler
/// (what a closure gives micrograd's backward for free). An op declares it and takes it:
///
///     struct PowOp {
///         struct Saved { double exponent = 0; };
///         static Tensor forward(ContextWith<Saved>& ctx, const Tensor& x, double p) { ctx.saved.exponent = p; ... }
///         static std::vector<Tensor> backward(ContextWith<Saved>& ctx, const Tensor& grad) { ... ctx.saved.exponent ... }
///     };
template <class Saved>
class ContextWith : public Context {
public:
    Saved saved{};  ///< what forward stored for backward
};

/// The context an op's forward and backward take: ContextWith<Op::Saved> when the op declares a
/// `Saved` struct, else Context.
template <class Op>
struct ContextOf {
    using type = Context;  ///< an op without a Saved struct
};
/// ContextOf for an op that declares a `Saved` struct.
template <class Op>
    requires requires { typename Op::Saved; }
struct ContextOf<Op> {
    using type = ContextWith<typename Op::Saved>;  ///< the context that holds the op's Saved
};
/// The context type Op's forward and backward take (ContextOf<Op>::type).
template <class Op>
using ContextFor = typename ContextOf<Op>::type;

}  // namespace tinyamp
