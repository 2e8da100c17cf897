// Lab 7: backward dtypes. Fill in each TODO; check with:  build/lessons/lab_07
#include "lessons/07_backward_dtypes/lab.h"

#include "lessons/support/lab.h"

namespace tinyamp::lab07 {

std::vector<GradStep> backward_steps(const trace::Trace& trace)
{
    // TODO(lab 07.1): go through trace.events(); keep those whose phase is trace::Phase::backward
    // and that have at least one output; record {e.op, e.outputs[0].dtype}.
    // BEGIN SOLUTION
    std::vector<GradStep> steps;
    for (const trace::Event& e : trace.events())
        if (e.phase == trace::Phase::backward && !e.outputs.empty()) steps.push_back({e.op, e.outputs[0].dtype});
    return steps;
    // END SOLUTION
}

WeightGradDtypes weight_grad_dtypes(const Tensor& w, const Tensor& x, DType autocast_dtype)
{
    // TODO(lab 07.2): record a trace (trace::Trace t; trace::TraceRecorder recorder(t);) around the
    // forward (in the region) and the backward (after it). Then find the backward event whose op is
    // "linear": its outputs are the gradients it passed on, here only the weight's (x needs none).
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
    // TODO(lab 07.3): count the backward events with op "to" whose inputs[0] (the gradient that
    // arrived) is f16 or bf16 and whose outputs[0] (the one passed on) is f32.
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
