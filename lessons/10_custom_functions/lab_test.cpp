// Lab 10's checks. Run them with:  scripts/lab check 10
#include <cmath>
#include <string>
#include <vector>

#include "lessons/10_custom_functions/lab.h"
#include "lessons/support/lab_checks.h"

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
        LAB_CHECK("silu(0) = 0 * sigmoid(0) = 0", silu(tensor({0.0}, f64)).item() == 0.0);
        LAB_CHECK("silu(1) = 1 * sigmoid(1) = 0.7310585786300049",
                  silu(tensor({1.0}, f64)).item() == doctest::Approx(0.7310585786300049).epsilon(1e-12));
        const Tensor x = tensor({0.0}, f64).requires_grad_();
        silu(x).backward();
        LAB_CHECK("d silu/dx = s + x s (1 - s) is 1/2 at 0; s (1 - s) alone, sigmoid's derivative, is 1/4 (mistake: "
                  "forgetting the product rule)",
                  x.grad().item() == 0.5);
        Generator gen(0);
        const GradcheckResult r = gradcheck([](const std::vector<Tensor>& in) { return silu(in[0]); },
                                            {randn({6}, f64, gen).requires_grad_()});
        CAPTURE(r.report);
        LAB_CHECK("gradcheck in f64: the hand-written backward agrees with finite differences at 6 random points "
                  "(mistake: forgetting the product rule)",
                  r.ok == true);
    }

    TEST_CASE("lab 10.2: run_with_cast_inputs_f32 does what cast_inputs = f32 does")
    {
        const std::vector<Tensor> inputs{ones({2, 2}, f16), ones({2, 2}, bf16), ones({2, 2}, f64), ones({2, 2}, i64)};
        amp::autocast region("cpu", {.dtype = f16});
        const Tensor out = run_with_cast_inputs_f32(recording_forward, inputs);
        LAB_CHECK("f16 and bf16 inputs arrive as f32; f64 and integer inputs are never cast (mistake: casting f64 inputs "
                  "down to f32)",
                  saw.dtypes == std::vector<DType>{f32, f32, f64, i64});
        LAB_CHECK("forward runs with autocast off, as cast_inputs = f32 runs it (mistake: calling forward with autocast "
                  "still on)",
                  saw.autocast == false);
        LAB_CHECK("with autocast off, matmul of the f32 inputs stays f32; with it on, the f16 region would cast them "
                  "back to f16 (mistake: calling forward with autocast still on)",
                  out.dtype() == f32);
        LAB_CHECK("the caller's region is back after the call: autocast is on",
                  amp::is_autocast_enabled(DeviceType::cpu) == true);
        const Tensor declared = Declared::apply(inputs[0], inputs[1]);
        LAB_CHECK("the real custom_fwd(cast_inputs = f32) gives its forward the same f32 inputs",
                  saw.dtypes == std::vector<DType>{f32, f32});
        LAB_CHECK("the real custom_fwd(cast_inputs = f32) gives the same f32 output", declared.dtype() == f32);
    }

    TEST_CASE("lab 10.2: outside autocast run_with_cast_inputs_f32 changes nothing")
    {
        const Tensor out = run_with_cast_inputs_f32(recording_forward, {ones({2, 2}, f16), ones({2, 2}, f16)});
        LAB_CHECK("outside autocast cast_inputs casts nothing: the f16 inputs arrive as f16",
                  saw.dtypes == std::vector<DType>{f16, f16});
        LAB_CHECK("outside autocast forward runs with autocast off, as it was", saw.autocast == false);
        LAB_CHECK("outside autocast matmul of f16 inputs gives f16", out.dtype() == f16);
    }

    TEST_CASE("lab 10.3: custom_bwd replays the forward's autocast state")
    {
        const Tensor a = ones({2, 2}).requires_grad_(), b = full({2, 2}, 3.0).requires_grad_();
        Tensor y;
        {
            amp::autocast region("cpu");   // bf16, the CPU default
            y = my_mm(a, b);
        }
        LAB_CHECK("custom_fwd without cast_inputs runs forward in the caller's region: mm is autocast to bf16",
                  y.dtype() == bf16);
        LAB_CHECK("ones @ full(3): every element is 3 + 3 = 6", y.at({0, 0}) == 6.0);
        sum(y).backward();                 // outside the region
        const BackwardSeen s = last_backward_seen();
        LAB_CHECK("custom_bwd replays the forward's autocast state: on, though backward runs after the region",
                  s.autocast_enabled == true);
        LAB_CHECK("custom_bwd replays the forward's autocast dtype, bf16", s.autocast_dtype == bf16);
        LAB_CHECK("the gradient of a bf16 output arrives in bf16", s.grad_dtype == bf16);
        LAB_CHECK("the gradient reaches a in a's own dtype, f32", a.grad().dtype() == f32);
        LAB_CHECK("a.grad = grad @ b^T: each element is a row sum of b, 3 + 3 = 6", a.grad().at({0, 0}) == 6.0);
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
        LAB_CHECK("in an f16 region the forward's mm runs in f16", y.dtype() == f16);
        sum(y).backward();
        const BackwardSeen s = last_backward_seen();
        LAB_CHECK("custom_bwd replays the forward's autocast state: on", s.autocast_enabled == true);
        LAB_CHECK("custom_bwd replays the region's f16, not the CPU default bf16", s.autocast_dtype == f16);
        LAB_CHECK("the gradient of an f16 output arrives in f16", s.grad_dtype == f16);
        LAB_CHECK("the gradient reaches a in a's own dtype, f32", a.grad().dtype() == f32);
        LAB_CHECK("a.grad = grad @ b^T: each element is a row sum of b, 3 + 3 = 6", a.grad().at({0, 0}) == 6.0);
    }

    TEST_CASE("lab 10.3: without a region, my_mm's backward sees autocast off")
    {
        const Tensor a = ones({2, 2}).requires_grad_(), b = ones({2, 2}).requires_grad_();
        const Tensor y = my_mm(a, b);
        LAB_CHECK("without a region mm runs in its inputs' f32", y.dtype() == f32);
        sum(y).backward();
        LAB_CHECK("a forward without autocast is replayed as such: backward sees autocast off (mistake: opening an "
                  "autocast region in backward)",
                  last_backward_seen().autocast_enabled == false);
        LAB_CHECK("the gradient of an f32 output arrives in f32", last_backward_seen().grad_dtype == f32);
    }

    TEST_CASE("lab 10.3: my_mm's gradients are grad @ b^T and a^T @ grad")
    {
        // Matrices that are not symmetric, so that a missing transpose shows.
        const Tensor a = tensor({1, 2, 3, 4}, {2, 2}).requires_grad_(), b = tensor({5, 6, 7, 8}, {2, 2}).requires_grad_();
        sum(my_mm(a, b)).backward();  // the gradient of the sum: all ones
        LAB_CHECK("a.grad = ones @ b^T: each row holds b's row sums, 5 + 6 and 7 + 8 (mistake: forgetting the transposes "
                  "in backward)",
                  a.grad().to_vector() == std::vector<double>{11, 15, 11, 15});
        LAB_CHECK("b.grad = a^T @ ones: row k holds a's column k summed, 1 + 3 and 2 + 4 (mistake: forgetting the "
                  "transposes in backward)",
                  b.grad().to_vector() == std::vector<double>{4, 4, 6, 6});
    }
}
