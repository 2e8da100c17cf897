// Lab 10: custom functions under autocast. Fill in each TODO; check with:  scripts/lab check 10
// Stuck? scripts/lab hint 10.1 gives a hint, a stronger one each time you ask.
#include "lessons/10_custom_functions/lab.h"

#include "lessons/support/lab.h"

namespace tinyamp::lab10 {
namespace {

struct SiLU : Function<SiLU> {
    static constexpr const char* name = "silu";

    static Tensor forward(Context& ctx, const Tensor& x)
    {
        // TODO(lab 10.1): return silu(x) = x * sigmoid(x), keeping in ctx what backward will need.
        // Example: silu(0) = 0, silu(1) = 0.7310585786.
        // BEGIN SOLUTION
        ctx.save_for_backward({x});
        return mul(x, sigmoid(x));
        // END SOLUTION
    }

    static std::vector<Tensor> backward(Context& ctx, const Tensor& grad)
    {
        // TODO(lab 10.1): return the gradient of the loss with respect to x, given `grad`, the one
        // with respect to silu(x): one tensor per tensor argument of forward (lab.h has the
        // derivative). Example: at x = 0 with grad 1 the gradient is 0.5.
        // BEGIN SOLUTION
        const Tensor& x = ctx.saved_tensors()[0];
        const Tensor s = sigmoid(x);
        return {mul(grad, add(s, mul(mul(x, s), sub(1.0, s))))};
        // END SOLUTION
    }
};

}  // namespace

Tensor silu(const Tensor& x) { return SiLU::apply(x); }

Tensor run_with_cast_inputs_f32(const std::function<Tensor(const std::vector<Tensor>&)>& forward, const std::vector<Tensor>& inputs)
{
    // TODO(lab 10.2): return forward's result, called as custom_fwd(cast_inputs = f32) would call
    // it (lab.h), the caller's autocast state unchanged afterwards. Example: in an f16 region, the
    // inputs f16, bf16, f64, i64 reach forward as f32, f32, f64, i64, with autocast off; outside
    // autocast, f16 inputs reach it as f16.
    // BEGIN SOLUTION
    if (!amp::is_autocast_enabled(DeviceType::cpu)) return forward(inputs);
    std::vector<Tensor> cast;
    for (const Tensor& t : inputs)
        cast.push_back(t.defined() && is_floating_point(t.dtype()) && t.dtype() != f64 ? t.to(f32) : t);
    amp::autocast off("cpu", {.enabled = false});
    return forward(cast);
    // END SOLUTION
}

namespace {

BackwardSeen seen_by_backward;

// custom_fwd without cast_inputs: forward runs in the caller's autocast state (so mm is autocast);
// custom_bwd: backward runs in that same state.
struct MyMm : Function<MyMm> {
    static constexpr const char* name = "my_mm";
    static constexpr amp::CustomFwd custom_fwd{.device_type = DeviceType::cpu};
    static constexpr amp::CustomBwd custom_bwd{.device_type = DeviceType::cpu};

    static Tensor forward(Context& ctx, const Tensor& a, const Tensor& b)
    {
        // TODO(lab 10.3): return a @ b, keeping in ctx what backward will need. Example: ones [2, 2]
        // @ 3s [2, 2] is 6s, in bf16 when called in a bf16 region.
        // BEGIN SOLUTION
        ctx.save_for_backward({a, b});
        return mm(a, b);
        // END SOLUTION
    }

    static std::vector<Tensor> backward(Context& ctx, const Tensor& grad)
    {
        // TODO(lab 10.3): record in seen_by_backward the CPU autocast state backward runs in and
        // grad's dtype, then return the gradients of a and b. Example: after a forward in a bf16
        // region, backward sees {on, bf16, a bf16 grad}; with a = ones, b = 3s and grad = ones,
        // a's gradient is 6s.
        // BEGIN SOLUTION
        seen_by_backward = {amp::is_autocast_enabled(DeviceType::cpu), amp::get_autocast_dtype(DeviceType::cpu), grad.dtype()};
        const std::vector<Tensor>& s = ctx.saved_tensors();
        return {mm(grad, s[1].t()), mm(s[0].t(), grad)};
        // END SOLUTION
    }
};

}  // namespace

Tensor my_mm(const Tensor& a, const Tensor& b) { return MyMm::apply(a, b); }

BackwardSeen last_backward_seen() { return seen_by_backward; }

}  // namespace tinyamp::lab10
