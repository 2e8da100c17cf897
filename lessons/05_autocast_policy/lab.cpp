// Lab 5: the autocast policy. Fill in each TODO; check with:  build/lessons/labs -ts=lab05
#include "lessons/05_autocast_policy/lab.h"

#include "lessons/support/lab.h"

namespace tinyamp::lab05 {

std::vector<DType> output_dtypes_under_autocast(const std::function<std::vector<Tensor>()>& fn, DType dtype)
{
    // TODO(lab 05.1): open a region with amp::autocast region("cpu", {.dtype = dtype}), call fn inside
    // it, and collect the .dtype() of every tensor it returns.
    // BEGIN SOLUTION
    amp::autocast region("cpu", {.dtype = dtype});
    std::vector<DType> dtypes;
    for (const Tensor& t : fn()) dtypes.push_back(t.dtype());
    return dtypes;
    // END SOLUTION
}

std::string policy_of(const std::string& op, const std::string& device_type)
{
    // TODO(lab 05.2): turn the device string into a DeviceType (amp::parse_autocast_device_type throws
    // for anything but "cpu" and "cuda"), look the op up in amp::PolicyTable::builtin(device type),
    // and name the policy with amp::policy_name, or "not listed" when lookup gives nothing.
    // BEGIN SOLUTION
    const amp::PolicyTable& table = amp::PolicyTable::builtin(amp::parse_autocast_device_type(device_type));
    const std::optional<amp::CastPolicy> policy = table.lookup(op);
    return policy ? amp::policy_name(*policy) : "not listed";
    // END SOLUTION
}

std::vector<std::string> ops_that_ran_in(const trace::Trace& trace, DType dtype)
{
    // TODO(lab 05.3): go through trace.events(); keep the event's op name when its phase is
    // trace::Phase::forward, it is not a cast (is_cast), and outputs[0].dtype == dtype.
    // BEGIN SOLUTION
    std::vector<std::string> ops;
    for (const trace::Event& e : trace.events())
        if (e.phase == trace::Phase::forward && !e.is_cast && !e.outputs.empty() && e.outputs[0].dtype == dtype) ops.push_back(e.op);
    return ops;
    // END SOLUTION
}

}  // namespace tinyamp::lab05
