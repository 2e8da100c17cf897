// Lab 10: custom functions under autocast. Fill in each TODO; check with:  build/lessons/lab_10
#include "lessons/10_custom_functions/lab.h"

#include "lessons/support/lab.h"

namespace tinyamp::lab10 {
namespace {

struct SiLU : Function<SiLU> {
    static constexpr const char* name = "silu";

    static Tensor forward(Context& ctx, const Tensor& x)
    {
        // TODO(lab 10.1): save what backward needs and return x * sigmoid(x).
        // Hint: ctx.save_for_backward({x}); mul(x, sigmoid(x)).
        // BEGIN SOLUTION
        ctx.save_for_backward({x});
        return mul(x, sigmoid(x));
        // END SOLUTION
    }

    static std::vector<Tensor> backward(Context& ctx, const Tensor& grad)
    {
        // TODO(lab 10.1): return {grad * (s + x s (1 - s))} with s = sigmoid(x), x from ctx.saved_tensors()[0].
        // Hint: sub(1.0, s) is 1 - s; one gradient per tensor argument of forward.
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
    // TODO(lab 10.2): if autocast is off for the CPU, just return forward(inputs). Otherwise cast each
    // defined floating input that is not f64 to f32, open a sub-region with autocast off, and call forward.
    // Hint: amp::is_autocast_enabled(DeviceType::cpu); is_floating_point(t.dtype()); t.to(f32);
    // amp::autocast off("cpu", {.enabled = false}).
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
        // TODO(lab 10.3): save a and b, return mm(a, b).
        // BEGIN SOLUTION
        ctx.save_for_backward({a, b});
        return mm(a, b);
        // END SOLUTION
    }

    static std::vector<Tensor> backward(Context& ctx, const Tensor& grad)
    {
        // TODO(lab 10.3): record the autocast state and grad's dtype in seen_by_backward, then return
        // {grad @ b^T, a^T @ grad}.
        // Hint: amp::is_autocast_enabled(DeviceType::cpu), amp::get_autocast_dtype(DeviceType::cpu);
        // mm(grad, b.t()). Under the replayed region mm casts its f32 inputs by itself.
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
