// Lab 07's checks. Run them with:  scripts/lab check 07
#include <memory>
#include <string>

#include "lessons/07_backward_dtypes/lab.h"
#include "lessons/support/lab_checks.h"

using namespace tinyamp;
using namespace tinyamp::lab07;

// A GradStep prints as {op, dtype}, so a list of them shows what backward_steps returned.
namespace doctest {
template <>
struct StringMaker<tinyamp::lab07::GradStep> {
    static String convert(const tinyamp::lab07::GradStep& step)
    {
        return ("{" + step.op + ", " + tinyamp::dtype_name(step.dtype) + "}").c_str();
    }
};
}  // namespace doctest

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
        CAPTURE(steps);
        LAB_REQUIRE("the backward of mse_loss(linear(x, w)) under autocast runs 5 nodes that pass on a gradient; the "
                    "forward's events are not backward steps (mistake: keeping the forward events too)",
                    steps.size() == 5);
        LAB_CHECK("backward starts at the loss: mse_loss", steps[0].op == "mse_loss");
        LAB_CHECK("mse_loss ran in f32, so its backward passes on an f32 gradient (mistake: reading the gradient that "
                  "arrived instead of the one passed on)",
                  steps[0].dtype == f32);
        LAB_CHECK("then the cast of mse_loss's input, bf16 -> f32 in the forward", steps[1].op == "to");
        LAB_CHECK("the backward of a bf16 -> f32 cast turns the f32 gradient back into bf16 (mistake: reading the gradient "
                  "that arrived instead of the one passed on)",
                  steps[1].dtype == bf16);
        LAB_CHECK("then linear", steps[2].op == "linear");
        LAB_CHECK("linear ran in bf16, so the gradient it computes for w's bf16 copy is bf16",
                  steps[2].dtype == bf16);
        LAB_CHECK("then the cast of w, f32 -> bf16 in the forward", steps[3].op == "to");
        LAB_CHECK("the backward of w's f32 -> bf16 cast brings its gradient back to f32 (mistake: reading the gradient "
                  "that arrived instead of the one passed on)",
                  steps[3].dtype == f32);
        LAB_CHECK("last, AccumulateGrad writes w.grad", steps[4].op == "AccumulateGrad");
        LAB_CHECK("w.grad has w's dtype, f32", steps[4].dtype == f32);
    }

    TEST_CASE("lab 07.2: the weight's gradient is computed in the autocast dtype, stored in the weight's")
    {
        const Tensor x = ones({2, 3});
        const Tensor w = full({4, 3}, 0.5).requires_grad_();
        const WeightGradDtypes in_bf16 = weight_grad_dtypes(w, x, bf16);
        LAB_CHECK("in a bf16 region linear's backward computes the weight's gradient in bf16",
                  in_bf16.from_linear == bf16);
        LAB_CHECK("the backward of autocast's cast brings it back to the f32 weight's dtype: w.grad is f32",
                  in_bf16.in_grad == f32);
        const WeightGradDtypes in_f16 = weight_grad_dtypes(w, x, f16);
        LAB_CHECK("in an f16 region linear's backward computes the weight's gradient in f16: use the dtype you are given",
                  in_f16.from_linear == f16);
        LAB_CHECK("w.grad is f32 whatever the region's dtype",
                  in_f16.in_grad == f32);
        LAB_CHECK("d sum(x w^T) / d w[0][0] = x[0][0] + x[1][0] = 2; w.grad is overwritten, not added to the previous call's "
                  "(mistake: accumulating into the old w.grad)",
                  w.grad().at({0, 0}) == 2.0);
        const Tensor w_bf16 = full({4, 3}, 0.5, bf16).requires_grad_();  // a bf16 weight: no master copy
        const WeightGradDtypes low = weight_grad_dtypes(w_bf16, x, bf16);
        LAB_CHECK("a bf16 weight: linear's backward gives a bf16 gradient",
                  low.from_linear == bf16);
        LAB_CHECK("a bf16 weight has no cast to undo: .grad has the leaf's dtype, bf16",
                  low.in_grad == bf16);
    }

    TEST_CASE("lab 07.3: count the gradients that autocast's casts brought back to f32")
    {
        LAB_CHECK("a two-layer net with biases under bf16 autocast: the gradients of w1, b1, w2 and b2 come back to f32 "
                  "through their casts; the forward's casts are not gradients (mistake: counting the forward casts too)",
                  gradients_cast_to_f32(traced_step(true, {})) == 4);
        LAB_CHECK("without biases only w1 and w2 are cast",
                  gradients_cast_to_f32(traced_step(false, {})) == 2);
        const amp::AutocastOptions gpu{.dtype = f16, .table = std::make_shared<const amp::PolicyTable>(amp::PolicyTable::cuda())};
        LAB_CHECK("under f16 autocast the 4 gradients arrive in f16, and count too (mistake: counting only bf16 gradients)",
                  gradients_cast_to_f32(traced_step(true, gpu)) == 4);
        LAB_CHECK("no autocast, no casts: nothing to count",
                  gradients_cast_to_f32(traced_step(true, {.enabled = false})) == 0);
    }
}
