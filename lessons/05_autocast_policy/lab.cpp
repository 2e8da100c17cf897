// Lab 05: the autocast policy. Fill in each TODO; check with:  scripts/lab check 05
// Stuck? scripts/lab hint 05.1 gives a hint, a stronger one each time you ask.
#include "lessons/05_autocast_policy/lab.h"

#include "lessons/support/lab.h"

namespace tinyamp::lab05 {

std::vector<DType> output_dtypes_under_autocast(const std::function<std::vector<Tensor>()>& fn, DType dtype)
{
    // TODO(lab 05.1): return the dtype of each tensor `fn` returns, in order, when fn runs under
    // CPU autocast with autocast dtype `dtype`. Example: with f32 x and w, an fn returning
    // {linear(x, w), add(x, x)} gives {bf16, f32} for bf16, and {f16, f32} for f16.
    // BEGIN SOLUTION
    amp::autocast region("cpu", {.dtype = dtype});
    std::vector<DType> dtypes;
    for (const Tensor& t : fn()) dtypes.push_back(t.dtype());
    return dtypes;
    // END SOLUTION
}

std::string policy_of(const std::string& op, const std::string& device_type)
{
    // TODO(lab 05.2): return the name of the policy the built-in table of `device_type` ("cpu" or
    // "cuda") gives `op`, or "not listed" when that table has no entry for it; any other device
    // type throws tinyamp::Error. Example: "softmax" is "not listed" on "cpu" but
    // "fp32_set_opt_dtype" on "cuda"; "linear" on "tpu" throws.
    // BEGIN SOLUTION
    const amp::PolicyTable& table = amp::PolicyTable::builtin(amp::parse_autocast_device_type(device_type));
    const std::optional<amp::CastPolicy> policy = table.lookup(op);
    return policy ? amp::policy_name(*policy) : "not listed";
    // END SOLUTION
}

std::vector<std::string> ops_that_ran_in(const trace::Trace& trace, DType dtype)
{
    // TODO(lab 05.3): return the op names of the trace's forward events that are not autocast's
    // casts and whose (first) output has `dtype`, in the order they ran. Example: the trace of
    // cross_entropy(relu(linear(x, w)), labels).backward() under bf16 CPU autocast gives
    // {"linear", "relu"} for bf16 and {"cross_entropy"} for f32.
    // BEGIN SOLUTION
    std::vector<std::string> ops;
    for (const trace::Event& e : trace.events())
        if (e.phase == trace::Phase::forward && !e.is_cast && !e.outputs.empty() && e.outputs[0].dtype == dtype) ops.push_back(e.op);
    return ops;
    // END SOLUTION
}

}  // namespace tinyamp::lab05
