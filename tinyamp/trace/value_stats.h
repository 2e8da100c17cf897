#pragma once
/// \file
/// How a tensor's values sit against f16 and bf16: the statistics each traced output carries
/// (the visualizer's histogram and underflow/overflow shares).

#include <cstdint>
#include <vector>

#include "tinyamp/tensor/tensor.h"

namespace tinyamp::trace {

/// How many finite non-zero values fall in each binade [2^e, 2^(e+1)), e = floor(log2|x|):
/// the visualizer's log2|x| histogram, drawn against the f16 and bf16 limits.
struct Log2Histogram {
    /// floor(log2|x|) of finite non-zero doubles: 2^-1074 (the smallest subnormal) up to 2^1023.
    static constexpr int kSmallestExponent = -1074;
    static constexpr int kLargestExponent = 1023;  ///< the binade of the largest finite double

    int lowest_exponent = 0;           ///< e of counts[0]; 0 when counts is empty
    std::vector<std::int64_t> counts;  ///< counts[i]: values with floor(log2|x|) == lowest_exponent + i; empty if none
};

/// How the values of a tensor sit against the low-precision formats (shares are in [0, 1]).
/// zeros, infs and nans are shares of all elements; an underflow share is taken over the finite
/// non-zero elements and an overflow share over the finite elements (0 when there are none), so
/// "f16_underflow = 0.3" reads "30% of the values that carry information would become 0 in f16".
struct ValueStats {
    double min_abs = 0;           ///< smallest |x| over finite non-zero elements (0 if none)
    double max_abs = 0;           ///< largest |x| over finite elements
    double zeros = 0;             ///< share of exact zeros
    double infs = 0;              ///< share of +-inf
    double nans = 0;              ///< share of NaN
    double f16_underflow = 0;     ///< share of finite non-zero values that f16 rounds to 0
    double f16_overflow = 0;      ///< share of finite values that f16 rounds to +-inf
    double bf16_underflow = 0;    ///< share of finite non-zero values that bf16 rounds to 0
    double bf16_overflow = 0;     ///< share of finite values that bf16 rounds to +-inf
    Log2Histogram log2_abs;       ///< the finite non-zero values by binade
};
ValueStats compute_stats(const Tensor& t);  ///< on the CPU, in f64; empty tensors give all zeros

}  // namespace tinyamp::trace
