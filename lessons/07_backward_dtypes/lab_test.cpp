// Lab 7's checks. Run them with:  build/lessons/lab_07
#include <doctest/doctest.h>

#include <memory>

#include "lessons/07_backward_dtypes/lab.h"

using namespace tinyamp;
using namespace tinyamp::lab07;

namespace {

// A two-layer net's step, forward in a region with `options`, backward outside it, all traced.
trace::Trace traced_step(bool with_bias, amp::AutocastOptions options)
{
    Generator gen(1);
    const Tensor x = randn({4, 3}, f32, gen);
    const Tensor w1 = randn({5, 3}, f32, gen).requires_grad_(), w2 = randn({2, 5}, f32, gen).requires_grad_();
    const Tensor b1 = with_bias ? zeros({5}).requires_grad_() : Tensor(), b2 = with_bias ? zeros({2}).requires_grad_() : Tensor();
    trace::Trace t;
    trace::TraceRecorder recorder(t);
    Tensor loss;
    {
        amp::autocast region("cpu", options);
        loss = mse_loss(linear(relu(linear(x, w1, b1)), w2, b2), zeros({4, 2}));
    }
    loss.backward();
    return t;
}

}  // namespace

TEST_SUITE("lab07")
{
    TEST_CASE("lab 07.1: backward_steps reads each gradient's dtype from the trace")
    {
        const Tensor x = ones({2, 3}), target = zeros({2, 4});
        const Tensor w = ones({4, 3}).requires_grad_();
        trace::Trace t;
        {
            trace::TraceRecorder recorder(t);
            Tensor loss;
            {
                amp::autocast region("cpu");             // bf16
                loss = mse_loss(linear(x, w), target);   // linear in bf16, mse_loss in f32
            }
            loss.backward();
        }
        const std::vector<GradStep> steps = backward_steps(t);
        REQUIRE(steps.size() == 5);
        CHECK(steps[0].op == "mse_loss");
        CHECK(steps[0].dtype == f32);         // mse_loss ran in f32
        CHECK(steps[1].op == "to");
        CHECK(steps[1].dtype == bf16);        // its input's cast bf16->f32, backward: f32->bf16
        CHECK(steps[2].op == "linear");
        CHECK(steps[2].dtype == bf16);        // linear ran in bf16
        CHECK(steps[3].op == "to");
        CHECK(steps[3].dtype == f32);         // w's cast f32->bf16, backward: bf16->f32
        CHECK(steps[4].op == "AccumulateGrad");
        CHECK(steps[4].dtype == f32);         // w.grad
    }

    TEST_CASE("lab 07.2: the weight's gradient is computed in the autocast dtype, stored in the weight's")
    {
        const Tensor x = ones({2, 3});
        const Tensor w = full({4, 3}, 0.5).requires_grad_();
        const WeightGradDtypes in_bf16 = weight_grad_dtypes(w, x, bf16);
        CHECK(in_bf16.from_linear == bf16);
        CHECK(in_bf16.in_grad == f32);
        const WeightGradDtypes in_f16 = weight_grad_dtypes(w, x, f16);
        CHECK(in_f16.from_linear == f16);
        CHECK(in_f16.in_grad == f32);
        CHECK(w.grad().at({0, 0}) == 2.0);  // d sum(x w^T) / d w[0][0] = x[0][0] + x[1][0] = 2
        const Tensor w_bf16 = full({4, 3}, 0.5, bf16).requires_grad_();  // a bf16 weight: no master copy
        const WeightGradDtypes low = weight_grad_dtypes(w_bf16, x, bf16);
        CHECK(low.from_linear == bf16);
        CHECK(low.in_grad == bf16);         // .grad has the leaf's dtype
    }

    TEST_CASE("lab 07.3: count the gradients that autocast's casts brought back to f32")
    {
        CHECK(gradients_cast_to_f32(traced_step(true, {})) == 4);    // w1, b1, w2, b2
        CHECK(gradients_cast_to_f32(traced_step(false, {})) == 2);   // w1, w2
        const amp::AutocastOptions gpu{.dtype = f16, .table = std::make_shared<const amp::PolicyTable>(amp::PolicyTable::cuda())};
        CHECK(gradients_cast_to_f32(traced_step(true, gpu)) == 4);   // f16 gradients count too
        CHECK(gradients_cast_to_f32(traced_step(true, {.enabled = false})) == 0);  // no autocast, no casts
    }
}
