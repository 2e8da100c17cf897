#pragma once
/// \file
/// `Function<T>`: an op with a forward and a backward, PyTorch's torch.autograd.Function in C++.
///
/// Every built-in op has the same shape (a name, a forward, a backward), so user code and
/// tinyamp's ops take the same road through the dispatcher (autocast -> autograd -> kernel).
///
/// \code
///   struct Square : Function<Square> {
///       static constexpr const char* name = "square";
///       static Tensor forward(Context& ctx, const Tensor& x) {
///           ctx.save_for_backward({x});
///           return mul(x, x);
///       }
///       static std::vector<Tensor> backward(Context& ctx, const Tensor& grad) {
///           const Tensor& x = ctx.saved_tensors()[0];
///           return {mul(grad, mul(x, 2.0))};  // one gradient per tensor argument of forward
///       }
///   };
///   Tensor y = Square::apply(x);
/// \endcode
///
/// Values other than tensors (a dtype, a dimension, a flag) go in a `Saved` struct the op
/// declares; forward and backward then take `ContextWith<Saved>&` and use `ctx.saved`, checked
/// by the compiler (PyTorch's `ctx.scale = scale`, typed):
///
/// \code
///   struct Scale : Function<Scale> {
///       static constexpr const char* name = "scale";
///       struct Saved { double scale = 1; };
///       static Tensor forward(ContextWith<Saved>& ctx, const Tensor& x, double scale) {
///           ctx.saved.scale = scale;
///           return mul(x, scale);
///       }
///       static std::vector<Tensor> backward(ContextWith<Saved>& ctx, const Tensor& grad) {
///           return {mul(grad, ctx.saved.scale)};
///       }
///   };
/// \endcode

#include "tinyamp/autograd/context.h"
#include "tinyamp/dispatch/dispatch.h"

namespace tinyamp {

/// Derive from `Function<YourOp>` to get `YourOp::apply(args...)`, which runs through the dispatcher.
/// YourOp declares `name`, `forward(Context&, args...)` and `backward(Context&, grad)` returning
/// one gradient per tensor argument (with a `Saved` struct: `ContextWith<Saved>&` in both);
/// custom_fwd / custom_bwd (amp/custom_function.h) are optional.
template <class Op>
struct Function {
    /// Tells the dispatcher that this is a user's op: its forward runs in the current autocast
    /// state (with custom_fwd applied), where a built-in op's forward runs with autocast excluded.
    static constexpr bool is_user_function = true;

    /// Runs the op through the dispatcher (autocast, then autograd, then Op::forward) and returns
    /// its result, recorded for backward when an input requires grad; PyTorch's Function.apply.
    template <class... Args>
    static Tensor apply(const Args&... args)
    {
        (void)registered;  // instantiates it: the name is registered when the program starts
        return dispatch<Op>(args...);
    }

    /// This op's name, known to policy tables (support/op_names.h), so that a row can name it.
    static inline const bool registered = register_op_name(Op::name);
};

}  // namespace tinyamp
