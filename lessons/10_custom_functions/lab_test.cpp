// Lab 10's checks. Run them with:  build/lessons/lab_10
#include <doctest/doctest.h>

#include <cmath>

#include "lessons/10_custom_functions/lab.h"

using namespace tinyamp;
using namespace tinyamp::lab10;

namespace {

// What a forward saw: the dtype of each input and whether autocast was on.
struct Saw {
    std::vector<DType> dtypes;
    bool autocast = true;
};
Saw saw;

Tensor recording_forward(const std::vector<Tensor>& inputs)
{
    saw = {{}, amp::is_autocast_enabled(DeviceType::cpu)};
    for (const Tensor& t : inputs) saw.dtypes.push_back(t.dtype());
    return matmul(inputs[0], inputs[1]);
}

// The real declaration, to compare with: custom_fwd(cast_inputs = f32).
struct Declared : Function<Declared> {
    static constexpr const char* name = "declared";
    static constexpr amp::CustomFwd custom_fwd{.device_type = DeviceType::cpu, .cast_inputs = f32};
    static Tensor forward(Context&, const Tensor& a, const Tensor& b) { return recording_forward({a, b}); }
    static std::vector<Tensor> backward(Context&, const Tensor& grad) { return {grad, grad}; }
};

}  // namespace

TEST_SUITE("lab10")
{
    TEST_CASE("lab 10.1: silu forward and backward")
    {
        CHECK(silu(tensor({0.0}, f64)).item() == 0.0);
        CHECK(silu(tensor({1.0}, f64)).item() == doctest::Approx(0.7310585786300049).epsilon(1e-12));  // sigmoid(1)
        const Tensor x = tensor({0.0}, f64).requires_grad_();
        silu(x).backward();
        CHECK(x.grad().item() == 0.5);  // s + x s (1 - s) at 0: 1/2
        Generator gen(0);
        const GradcheckResult r = gradcheck([](const std::vector<Tensor>& in) { return silu(in[0]); },
                                            {randn({6}, f64, gen).requires_grad_()});
        CHECK(r.ok);
    }

    TEST_CASE("lab 10.2: run_with_cast_inputs_f32 does what cast_inputs = f32 does")
    {
        const std::vector<Tensor> inputs{ones({2, 2}, f16), ones({2, 2}, bf16), ones({2, 2}, f64), ones({2, 2}, i64)};
        amp::autocast region("cpu", {.dtype = f16});
        const Tensor out = run_with_cast_inputs_f32(recording_forward, inputs);
        CHECK(saw.dtypes == std::vector<DType>{f32, f32, f64, i64});  // f64 and integers are never cast
        CHECK(saw.autocast == false);
        CHECK(out.dtype() == f32);
        CHECK(amp::is_autocast_enabled(DeviceType::cpu));            // the region is back afterwards
        const Tensor declared = Declared::apply(inputs[0], inputs[1]);
        CHECK(saw.dtypes == std::vector<DType>{f32, f32});            // the declaration does the same
        CHECK(declared.dtype() == f32);
    }

    TEST_CASE("lab 10.2: outside autocast run_with_cast_inputs_f32 changes nothing")
    {
        const Tensor out = run_with_cast_inputs_f32(recording_forward, {ones({2, 2}, f16), ones({2, 2}, f16)});
        CHECK(saw.dtypes == std::vector<DType>{f16, f16});
        CHECK(saw.autocast == false);
        CHECK(out.dtype() == f16);
    }

    TEST_CASE("lab 10.3: custom_bwd replays the forward's autocast state")
    {
        const Tensor a = ones({2, 2}).requires_grad_(), b = full({2, 2}, 3.0).requires_grad_();
        Tensor y;
        {
            amp::autocast region("cpu");   // bf16, the CPU default
            y = my_mm(a, b);
        }
        CHECK(y.dtype() == bf16);          // mm inside forward was autocast
        CHECK(y.at({0, 0}) == 6.0);
        sum(y).backward();                 // outside the region
        const BackwardSeen s = last_backward_seen();
        CHECK(s.autocast_enabled == true);
        CHECK(s.autocast_dtype == bf16);
        CHECK(s.grad_dtype == bf16);
        CHECK(a.grad().dtype() == f32);    // the gradient reaches a in a's dtype
        CHECK(a.grad().at({0, 0}) == 6.0); // row sums of b: 3 + 3
    }

    TEST_CASE("lab 10.3: custom_bwd replays the region's dtype, not the CPU default")
    {
        // An f16 region: a backward that re-entered autocast("cpu") with the default dtype would
        // run in bf16 (PyTorch issue 125186: the dtype lost in backward).
        const Tensor a = ones({2, 2}).requires_grad_(), b = full({2, 2}, 3.0).requires_grad_();
        Tensor y;
        {
            amp::autocast region("cpu", {.dtype = f16});
            y = my_mm(a, b);
        }
        CHECK(y.dtype() == f16);
        sum(y).backward();
        const BackwardSeen s = last_backward_seen();
        CHECK(s.autocast_enabled == true);
        CHECK(s.autocast_dtype == f16);
        CHECK(s.grad_dtype == f16);
        CHECK(a.grad().dtype() == f32);
        CHECK(a.grad().at({0, 0}) == 6.0);
    }

    TEST_CASE("lab 10.3: without a region, my_mm's backward sees autocast off")
    {
        const Tensor a = ones({2, 2}).requires_grad_(), b = ones({2, 2}).requires_grad_();
        const Tensor y = my_mm(a, b);
        CHECK(y.dtype() == f32);
        sum(y).backward();
        CHECK(last_backward_seen().autocast_enabled == false);
        CHECK(last_backward_seen().grad_dtype == f32);
    }
}
