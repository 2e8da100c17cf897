#pragma once
/// \file
/// The one road every op takes.
///
/// tinyamp::matmul(a, b), x.transpose(0, 1), a user's MyFunction::apply(x): all of them come
/// here, so autocast and the trace see every op.
///
/// `dispatch<Op>(args...)` runs
///   1. the autocast layer: looks Op::name up in the thread's policy table and casts the tensor
///      arguments (amp/autocast_layer.h); each cast is itself a `to` op, so it has a gradient;
///   2. the autograd layer: records a Node if an input requires grad (autograd/record.h);
///   3. Op::forward: checks shapes and computes the result with kernels (`ops/*.cpp`);
///
/// and, when a trace is being recorded, adds one event for the op (and one per cast), built by
/// explain/explain.h from what the layers return.

#include <new>
#include <tuple>
#include <vector>

#include "tinyamp/amp/autocast_layer.h"
#include "tinyamp/amp/custom_function.h"
#include "tinyamp/support/op_names.h"
#include "tinyamp/autograd/record.h"
#include "tinyamp/tensor/tensor_args.h"
#include "tinyamp/explain/explain.h"
#include "tinyamp/trace/op_timing.h"

namespace tinyamp {
namespace detail {

// A user's op, derived from Function (ops/function.h, which includes this file).
template <class Op>
constexpr bool is_user_function = requires { requires Op::is_user_function; };

// An op that handles FP8/FP4 tensors says so (views, copies, to(), scaled_mm); every other op
// refuses them here, once for all ops, with one message.
template <class Op>
constexpr bool takes_minifloat = requires { requires Op::takes_minifloat; };

template <class Op, class... Args>
void refuse_minifloat_inputs(const Args&... args)
{
    if constexpr (!takes_minifloat<Op>) {
        const auto check = [](const Tensor& t) {
            if (t.defined() && is_minifloat(t.dtype())) fail_minifloat_input(Op::name, t.dtype());
        };
        (for_each_tensor(args, check), ...);
    }
}

// Layers 2 and 3. A built-in op's forward is shielded from autocast (ops it uses inside are part
// of it, as PyTorch's ExcludeDispatchKeyGuard does); a user Function's forward runs in the
// current autocast state, adjusted by its custom_fwd if it has one.
template <class Op, class... Args>
Tensor run_op(const Args&... args)
{
    refuse_minifloat_inputs<Op>(args...);
    const trace::TimedPiece timed(Op::name);  // while an OpTimingRecorder is alive (trace/op_timing.h)
    trace::NestedScope nested;
    try {
        if constexpr (is_user_function<Op>) {
            return autograd::run<amp::WithCustomAutocast<Op>>(args...);
        } else {
            amp::ExcludeAutocast exclude;
            return autograd::run<Op>(args...);
        }
    } catch (const std::bad_alloc&) {
        fail_out_of_memory(Op::name);
    }
}

// The autocast layer's casts: the differentiable `to` op (ops/view_ops.cpp), handed down to the
// layer, which sits below the ops and so cannot call them itself.
inline Tensor cast_with_to_op(const Tensor& t, DType dtype) { return t.to(dtype); }

// Layer 1, for one argument: each of its tensors (also in a list) as the decision says, each
// cast explained when someone reads it; an optional dtype set to f32 under fp32_set_opt_dtype;
// anything else unchanged.
inline Tensor autocast_tensor(const Tensor& t, const amp::Decision& decision, const char* op)
{
    std::optional<amp::CachedCast> cast = amp::cast_argument(t, decision, &cast_with_to_op);
    if (!cast) return t;
    if (trace::explaining()) trace::record_cast(op, decision, t, *cast);
    return std::move(cast->tensor);
}
inline std::optional<DType> autocast_argument(const std::optional<DType>& dtype, const amp::Decision& decision, const char*)
{
    return amp::dtype_argument(dtype, decision);
}
template <class A>
decltype(auto) autocast_argument(const A& a, const amp::Decision& decision, const char* op)
{
    return map_tensors(a, [&](const Tensor& t) { return autocast_tensor(t, decision, op); });
}

}  // namespace detail

/// Runs op \p Op on \p args through the three layers: autocast, autograd, then Op::forward.
///
/// \p Op is a struct with a `static constexpr const char* name` (the key of the autocast policy
/// table and the name in traces), `static Tensor forward(Context&, args...)` and, for an op with
/// a gradient, `static std::vector<Tensor> backward(Context&, const Tensor& grad)` returning one
/// gradient per tensor argument; a user's op derives from Function and is called as
/// `Op::apply(args...)`, which calls this. What happens to dtypes:
///   - inside an autocast region, the eligible tensor arguments (floating point, not f64, on the
///     region's device type) are cast as the policy of Op::name says: e.g. matmul and linear to
///     the region's bf16/f16, mse_loss and cross_entropy to f32, and ops such as softmax get f32
///     as their output dtype (when none was given) where the table says fp32_set_opt_dtype. Each
///     cast is a differentiable `to` op, and the lower-precision casts of f32 leaves that
///     require grad (the weights) are cached for the region;
///   - outside autocast, or for an op that is not listed, the op runs in its input dtypes;
///   - a built-in op's forward runs with autocast excluded (the ops it calls inside are part of
///     it), while a user Function's forward runs in the current autocast state, adjusted by its
///     custom_fwd if it has one.
///
/// All tensor arguments must be on one device, except 0-D CPU tensors (Error(device)); under
/// autocast the policy may refuse an op (banned ops, f16 mixed with bf16 under promote). When a
/// trace is recorded at top level, the op adds one event (and one per cast). As PyTorch's
/// dispatcher, with its Autocast and Autograd dispatch keys.
template <class Op, class... Args>
Tensor dispatch(const Args&... args)
{
    static_assert(detail::is_user_function<Op> || is_builtin_op(Op::name),
                  "a built-in op's name must be listed in kBuiltinOps (tinyamp/support/op_names.h), the names policy rows may use");
    if (!amp::autocast_layer_active() && !trace::current()) return detail::run_op<Op>(args...);  // the common case

    // 1. The autocast layer: decide, then cast the arguments. Braces evaluate left to right (a
    //    call's arguments need not), so the casts happen, and are traced, in argument order.
    const amp::Decision decision = amp::autocast_layer_active() ? amp::decide(Op::name, tensors_in(args...)) : amp::Decision{};
    if (trace::debug_enabled()) trace::log_decision(Op::name, decision);
    const bool traced = trace::current() && trace::at_top_level();
    const std::tuple cast_args{detail::autocast_argument(args, decision, Op::name)...};
    // 2 and 3. The autograd layer and Op::forward, on the cast arguments.
    const auto run_on = [](const auto&... a) { return detail::run_op<Op>(a...); };
    Tensor out = std::apply(run_on, cast_args);
    if (traced) trace::record_forward(Op::name, std::apply([](const auto&... a) { return tensors_in(a...); }, cast_args), out, decision);
    return out;
}

}  // namespace tinyamp
