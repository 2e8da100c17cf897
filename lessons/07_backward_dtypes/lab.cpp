// Lab 07: backward dtypes. Fill in each TODO; check with:  scripts/lab check 07
// Stuck? scripts/lab hint 07.1 gives a hint, a stronger one each time you ask.
#include "lessons/07_backward_dtypes/lab.h"

#include "lessons/support/lab.h"

namespace tinyamp::lab07 {

std::vector<GradStep> backward_steps(const trace::Trace& trace)
{
    // TODO(lab 07.1): return, in the order they ran, the backward nodes of `trace` that passed on a
    // gradient: each one's op and the dtype of the first gradient it passed on. Example: for
    // mse_loss(linear(x, w)) under bf16 autocast: {mse_loss, f32}, {to, bf16}, {linear, bf16},
    // {to, f32}, {AccumulateGrad, f32}.
    // BEGIN SOLUTION
    std::vector<GradStep> steps;
    for (const trace::Event& e : trace.events())
        if (e.phase == trace::Phase::backward && !e.outputs.empty()) steps.push_back({e.op, e.outputs[0].dtype});
    return steps;
    // END SOLUTION
}

WeightGradDtypes weight_grad_dtypes(const Tensor& w, const Tensor& x, DType autocast_dtype)
{
    // TODO(lab 07.2): run the step of lab.h (forward under autocast in `autocast_dtype`, backward
    // after the region) and report the dtype of the gradient linear's backward computed for w and
    // that of w.grad, which the step overwrites. Example: an f32 w in an f16 region gives
    // {from_linear f16, in_grad f32}; a bf16 w in a bf16 region gives {bf16, bf16}.
    // BEGIN SOLUTION
    w.set_grad(Tensor());
    trace::Trace t;
    {
        trace::TraceRecorder recorder(t);
        Tensor loss;
        {
            amp::autocast region("cpu", {.dtype = autocast_dtype});
            loss = sum(linear(x, w).to(f32));
        }
        loss.backward();
    }
    WeightGradDtypes result;
    for (const trace::Event& e : t.events())
        if (e.phase == trace::Phase::backward && e.op == "linear" && !e.outputs.empty()) result.from_linear = e.outputs[0].dtype;
    result.in_grad = w.grad().dtype();
    return result;
    // END SOLUTION
}

int gradients_cast_to_f32(const trace::Trace& trace)
{
    // TODO(lab 07.3): return how many backward casts (events "to") received an f16 or bf16 gradient
    // and passed on an f32 one. Example: a two-layer net with biases whose forward ran under bf16
    // autocast has 4 (the gradients of w1, b1, w2, b2); the same net without autocast has 0.
    // BEGIN SOLUTION
    int n = 0;
    for (const trace::Event& e : trace.events()) {
        if (e.phase != trace::Phase::backward || e.op != "to" || e.inputs.empty() || e.outputs.empty()) continue;
        const DType in = e.inputs[0].dtype;
        if ((in == f16 || in == bf16) && e.outputs[0].dtype == f32) ++n;
    }
    return n;
    // END SOLUTION
}

}  // namespace tinyamp::lab07
