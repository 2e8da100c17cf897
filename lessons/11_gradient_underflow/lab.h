#pragma once
// Lab 11: gradient underflow. Write these in lab.cpp; check them with:  scripts/lab check 11
#include <cstdint>
#include <vector>

#include <tinyamp/tinyamp.h>

namespace tinyamp::lab11 {

/// Of the finite, nonzero elements of `values`, the share that become exactly 0 when stored in f16
/// (0 when there are none). This is trace::compute_stats(values).f16_underflow, by hand.
double f16_underflow_share(const Tensor& values);

/// Counts of the finite nonzero elements by their power of two: bin i (0 <= i < hi - lo) counts the
/// values with floor(log2 |v|) == lo + i. Values below 2^lo go in bin 0, values at or above 2^hi in
/// the last bin; zeros, infs and NaNs are left out.
std::vector<std::int64_t> log2_histogram(const Tensor& values, int lo, int hi);

/// The smallest power of two S (1, 2, 4, ...) such that at most `max_share` of the finite nonzero
/// values of S * values become 0 in f16. Throws tinyamp::Error (kind value) when, before that, S
/// times the largest |value| would overflow f16 (round to inf): no single scale fits them all.
double smallest_saving_scale(const Tensor& values, double max_share);

}  // namespace tinyamp::lab11
