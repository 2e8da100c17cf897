#pragma once
// custom_fwd / custom_bwd for user Functions (torch.amp.custom_fwd / custom_bwd):
//
//   struct MyMatmul : Function<MyMatmul> {
//       static constexpr const char* name = "my_matmul";
//       static constexpr amp::CustomFwd custom_fwd{.device_type = DeviceType::cpu, .cast_inputs = f32};
//       static constexpr amp::CustomBwd custom_bwd{.device_type = DeviceType::cpu};
//       static Tensor forward(Context& ctx, const Tensor& a, const Tensor& b);
//       static std::vector<Tensor> backward(Context& ctx, const Tensor& grad);
//   };
//
// custom_fwd without cast_inputs: forward runs in the current autocast state, and custom_bwd runs
// backward in that same state (enabled and dtype), although backward is otherwise outside autocast.
// custom_fwd with cast_inputs, inside an enabled region: floating inputs on that device type (also
// inside std::vector<Tensor> arguments) are cast to cast_inputs and forward runs with autocast
// off; outside autocast it changes nothing. custom_bwd then runs backward with autocast off.

#include <optional>
#include <tuple>
#include <vector>

#include "tinyamp/amp/autocast.h"
#include "tinyamp/autograd/function.h"

namespace tinyamp::amp {

struct CustomFwd {
    DeviceType device_type = DeviceType::cpu;
    std::optional<DType> cast_inputs;
};

struct CustomBwd {
    DeviceType device_type = DeviceType::cpu;
};

template <class Op>
concept HasCustomFwd = requires { CustomFwd{Op::custom_fwd}; };
template <class Op>
concept HasCustomBwd = requires { CustomBwd{Op::custom_bwd}; };

// cast_inputs applies to floating tensors on the device type, except f64 (like autocast's eligibility).
inline Tensor cast_for_custom_fwd(const Tensor& t, DType to, DeviceType device_type)
{
    const bool castable = t.defined() && t.device().type() == device_type && is_floating_point(t.dtype()) && t.dtype() != DType::f64;
    return castable ? t.to(to) : t;
}
inline std::vector<Tensor> cast_for_custom_fwd(const std::vector<Tensor>& ts, DType to, DeviceType device_type)
{
    std::vector<Tensor> out;
    for (const Tensor& t : ts) out.push_back(cast_for_custom_fwd(t, to, device_type));
    return out;
}
template <class A>
const A& cast_for_custom_fwd(const A& a, DType, DeviceType)
{
    return a;
}

/// The Function the autograd layer runs for a user Function: Op itself, plus custom_fwd/bwd.
template <class Op>
struct WithCustomAutocast {
    static_assert(!HasCustomBwd<Op> || HasCustomFwd<Op>, "custom_bwd replays what custom_fwd recorded: declare custom_fwd too");
    static constexpr const char* name = Op::name;

    template <class... Args>
    static Tensor forward(Context& ctx, const Args&... args)
    {
        if constexpr (HasCustomFwd<Op>) {
            constexpr CustomFwd fwd = Op::custom_fwd;
            ctx.save("amp.dtype", get_autocast_dtype(fwd.device_type));
            const bool region_on = is_autocast_enabled(fwd.device_type);
            ctx.save("amp.fwd_used_autocast", fwd.cast_inputs ? false : region_on);
            if (fwd.cast_inputs && region_on) {
                const std::tuple<std::decay_t<decltype(cast_for_custom_fwd(args, *fwd.cast_inputs, fwd.device_type))>...> cast{
                    cast_for_custom_fwd(args, *fwd.cast_inputs, fwd.device_type)...};
                autocast off(device_type_name(fwd.device_type), {.enabled = false});
                return std::apply([&](const auto&... a) { return Op::forward(ctx, a...); }, cast);
            }
        }
        return Op::forward(ctx, args...);
    }

    static std::vector<Tensor> backward(Context& ctx, const Tensor& grad)
    {
        if constexpr (HasCustomBwd<Op>) {
            autocast region(device_type_name(Op::custom_bwd.device_type),
                            {.dtype = ctx.get<DType>("amp.dtype"), .enabled = ctx.get<bool>("amp.fwd_used_autocast")});
            return Op::backward(ctx, grad);
        } else {
            return Op::backward(ctx, grad);
        }
    }
};

}  // namespace tinyamp::amp
