#include "tinyamp/dispatch.h"

namespace tinyamp::detail {

void record_forward(const char* op, const std::vector<Tensor>& inputs, const Tensor& output, const amp::Decision& decision)
{
    trace::Event e;
    e.op = op;
    e.phase = trace::Phase::forward;
    for (const Tensor& t : inputs)
        if (t.defined()) e.inputs.push_back(trace::describe(t, false));
    e.outputs.push_back(trace::describe(output, true));
    e.device_type = device_type_name(output.device().type());
    e.policy = decision.rule;
    e.why = decision.autocast_on ? decision.why : std::string(op) + " ran with autocast off, in its input dtypes";
    trace::current()->add(std::move(e));
}

}  // namespace tinyamp::detail
