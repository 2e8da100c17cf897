#pragma once
/// \file
/// custom_fwd / custom_bwd for user Functions (torch.amp.custom_fwd / custom_bwd).
///
/// \code
///   struct MyMatmul : Function<MyMatmul> {
///       static constexpr const char* name = "my_matmul";
///       static constexpr amp::CustomFwd custom_fwd{.device_type = DeviceType::cpu, .cast_inputs = f32};
///       static constexpr amp::CustomBwd custom_bwd{.device_type = DeviceType::cpu};
///       static Tensor forward(Context& ctx, const Tensor& a, const Tensor& b);
///       static std::vector<Tensor> backward(Context& ctx, const Tensor& grad);
///   };
/// \endcode
///
/// custom_fwd without cast_inputs: forward runs in the current autocast state, and custom_bwd runs
/// backward in that same state (enabled and dtype), although backward is otherwise outside autocast.
/// custom_fwd with cast_inputs, inside an enabled region: floating inputs on that device type (also
/// inside `std::vector<Tensor>` arguments; f64 excepted) are cast to cast_inputs and forward runs
/// with autocast off; outside autocast it changes nothing. custom_bwd then runs backward with
/// autocast off.

#include <optional>
#include <tuple>
#include <vector>

#include "tinyamp/amp/autocast.h"
#include "tinyamp/amp/autocast_layer.h"
#include "tinyamp/autograd/context.h"
#include "tinyamp/tensor/tensor_args.h"

namespace tinyamp::amp {

/// A user Function's `static constexpr amp::CustomFwd custom_fwd{...}`: what torch.amp.custom_fwd's
/// arguments say.
struct CustomFwd {
    DeviceType device_type = DeviceType::cpu;  ///< the autocast device type whose state forward looks at
    std::optional<DType> cast_inputs;          ///< nullopt: run in the current state; a dtype: cast inputs to it, autocast off
};

/// A user Function's `static constexpr amp::CustomBwd custom_bwd{...}` (torch.amp.custom_bwd):
/// backward runs in the autocast state custom_fwd recorded. Needs custom_fwd too.
struct CustomBwd {
    DeviceType device_type = DeviceType::cpu;  ///< the device type of the region backward runs in
};

/// Op declares `static constexpr CustomFwd custom_fwd`.
template <class Op>
concept HasCustomFwd = requires { CustomFwd{Op::custom_fwd}; };
/// Op declares `static constexpr CustomBwd custom_bwd`.
template <class Op>
concept HasCustomBwd = requires { CustomBwd{Op::custom_bwd}; };

/// An argument under cast_inputs: each of its tensors (map_tensors) cast to `to` when autocast
/// could cast it (is_eligible: defined, on `device_type`, floating point, not f64); anything else
/// unchanged. The casts are autocast's own, so they do not go through the autocast layer again.
template <class A>
decltype(auto) cast_for_custom_fwd(const A& a, DType to, DeviceType device_type)
{
    ExcludeAutocast exclude;
    return map_tensors(a, [&](const Tensor& t) { return is_eligible(t, device_type) ? t.to(to) : t; });
}

/// The user op's Saved struct, when it declares one, so that WithCustomAutocast<Op> takes the
/// same context as Op (empty for an op without one).
template <class Op>
struct SavedOf {};
/// SavedOf for an op that declares a `Saved` struct.
template <class Op>
    requires requires { typename Op::Saved; }
struct SavedOf<Op> {
    using Saved = typename Op::Saved;  ///< the user op's own Saved
};

/// The Function the autograd layer runs for a user Function: Op itself, plus custom_fwd/bwd.
template <class Op>
struct WithCustomAutocast : SavedOf<Op> {
    static_assert(!HasCustomBwd<Op> || HasCustomFwd<Op>, "custom_bwd replays what custom_fwd recorded: declare custom_fwd too");
    static constexpr const char* name = Op::name;  ///< the user op's name (nodes and traces show it)

    /// Op::forward, after custom_fwd: saves the autocast dtype and whether forward ran under
    /// autocast (for custom_bwd), and with cast_inputs inside an enabled region casts the inputs
    /// (cast_for_custom_fwd) and runs forward in an `enabled = false` region.
    template <class... Args>
    static Tensor forward(ContextFor<Op>& ctx, const Args&... args)
    {
        if constexpr (HasCustomFwd<Op>) {
            constexpr CustomFwd fwd = Op::custom_fwd;
            const bool region_on = is_autocast_enabled(fwd.device_type);
            ctx.autocast_at_forward = {get_autocast_dtype(fwd.device_type), fwd.cast_inputs ? false : region_on};
            if (fwd.cast_inputs && region_on) {
                const std::tuple cast{cast_for_custom_fwd(args, *fwd.cast_inputs, fwd.device_type)...};  // left to right
                autocast off(device_type_name(fwd.device_type), {.enabled = false});
                return std::apply([&](const auto&... a) { return Op::forward(ctx, a...); }, cast);
            }
        }
        return Op::forward(ctx, args...);
    }

    /// Op::backward; with custom_bwd, inside a region of the dtype forward saw, enabled exactly
    /// when forward ran under autocast without cast_inputs.
    static std::vector<Tensor> backward(ContextFor<Op>& ctx, const Tensor& grad)
    {
        if constexpr (HasCustomBwd<Op>) {
            autocast region(device_type_name(Op::custom_bwd.device_type),
                            {.dtype = ctx.autocast_at_forward.dtype, .enabled = ctx.autocast_at_forward.used_autocast});
            return Op::backward(ctx, grad);
        } else {
            return Op::backward(ctx, grad);
        }
    }
};

}  // namespace tinyamp::amp
