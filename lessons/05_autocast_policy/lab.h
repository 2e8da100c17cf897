#pragma once
// Lab 05: the autocast policy. Write these in lab.cpp; check them with:  scripts/lab check 05
#include <functional>
#include <string>
#include <vector>

#include <tinyamp/tinyamp.h>

namespace tinyamp::lab05 {

/// Runs `fn` inside amp::autocast("cpu") with autocast dtype `dtype` and returns the dtype of each
/// tensor it returned, in order.
std::vector<DType> output_dtypes_under_autocast(const std::function<std::vector<Tensor>()>& fn, DType dtype);

/// The policy the built-in table of `device_type` ("cpu" or "cuda") gives `op`:
/// "lower_precision_fp", "fp32", "fp32_set_opt_dtype", "promote", "banned", or "not listed".
/// Any other device type throws tinyamp::Error.
std::string policy_of(const std::string& op, const std::string& device_type);

/// The ops of `trace` that ran in `dtype`: its forward events that are not autocast's casts and
/// whose (first) output has `dtype`, by op name, in the order they ran.
std::vector<std::string> ops_that_ran_in(const trace::Trace& trace, DType dtype);

}  // namespace tinyamp::lab05
