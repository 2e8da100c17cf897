#pragma once
// Lab 15: when 16 bits are not enough. Write these in lab.cpp; check them with:  scripts/lab check 15
#include <cstdint>
#include <vector>

#include <tinyamp/tinyamp.h>

namespace tinyamp::lab15 {

/// The sum of `values`, left to right, with the running sum stored in `dtype` after every
/// addition (as `acc = acc + v` does when acc is a tensor of that dtype). The values themselves
/// are first rounded to `dtype`.
double running_sum(const std::vector<double>& values, DType dtype);

/// Adds `value` (rounded to `dtype`) to a running sum in `dtype` that starts at 0, at most
/// `max_adds` times, and returns the sum where an addition first left it unchanged: the point
/// where the running sum stalls. If it never stalls within `max_adds` additions, returns the sum
/// after them.
double stall_point(double value, DType dtype, std::int64_t max_adds);

/// What a reduction kernel does instead: accumulate the values (rounded to `dtype`) in f32, then
/// round the total once to `dtype`.
double sum_with_f32_accumulator(const std::vector<double>& values, DType dtype);

/// The 16-bit format for values whose magnitudes lie between `smallest` and `largest` (both > 0):
/// f16 when both fit its normal range (it has 3 more bits of precision), else bf16 when they fit
/// bf16's normal range, else f32.
DType choose_low_dtype(double largest, double smallest);

}  // namespace tinyamp::lab15
