// Lab 17: the FP8 formats. Fill in each TODO; check with:  scripts/lab check 17
// Stuck? scripts/lab hint 17.1 gives a hint, a stronger one each time you ask.
#include "lessons/17_fp8_formats/lab.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "lessons/support/lab.h"

namespace tinyamp::lab17 {

double relative_error_bound(DType dtype)
{
    // TODO(lab 17.1): return the largest relative error of rounding a value in the normal range of
    // `dtype` to its nearest number: half the gap between 1 and the next number of the format.
    // Example: f8e4m3fn (3 mantissa bits) gives 0.0625, f8e5m2 0.125.
    // BEGIN SOLUTION
    return std::ldexp(1.0, -traits(dtype).mantissa_bits - 1);
    // END SOLUTION
}

double range_binades(int exponent_bits, int mantissa_bits, int bias, minifloat::Specials specials)
{
    // TODO(lab 17.2): return the width of the format's range in binades, log2(largest finite
    // number / smallest positive number), from its layout alone (every format here has
    // subnormals; `specials` says how it spends the codes whose exponent field is all ones).
    // Example: E4M3 (4, 3, 7, fn) gives log2(448 / 2^-9) = 17.807.
    // BEGIN SOLUTION
    const int all_ones = (1 << exponent_bits) - 1, fractions = 1 << mantissa_bits;
    int top_field = all_ones, top_fraction = fractions - 1;
    if (specials == minifloat::Specials::ieee) top_field = all_ones - 1;
    if (specials == minifloat::Specials::fn) top_fraction = fractions - 2;
    const double largest = double(fractions + top_fraction) / fractions * std::ldexp(1.0, top_field - bias);
    const double smallest = std::ldexp(1.0, 1 - bias - mantissa_bits);
    return std::log2(largest / smallest);
    // END SOLUTION
}

double flushed_share(const Tensor& values, DType dtype)
{
    // TODO(lab 17.3): return the share of the finite nonzero elements of `values` that become
    // exactly 0 when cast to `dtype` with to() (0 when there are none). Example: {1e-3, 9.7e-4,
    // 1e-2, 0, 1, 2e-3} in f8e4m3fn gives 0.2 (9.7e-4 is 1 of the 5 nonzero values).
    // BEGIN SOLUTION
    const std::vector<double> original = values.to_vector(), cast = values.to(dtype).to(f32).to_vector();
    double nonzero = 0, flushed = 0;
    for (std::size_t i = 0; i < original.size(); ++i) {
        if (original[i] == 0 || !std::isfinite(original[i])) continue;
        ++nonzero;
        if (cast[i] == 0) ++flushed;
    }
    return nonzero == 0 ? 0.0 : flushed / nonzero;
    // END SOLUTION
}

DType fp8_format_for(const Tensor& values, double max_share)
{
    // TODO(lab 17.4): return f8e4m3fn when at most `max_share` of the finite nonzero values lie
    // more than E4M3's range in binades below the largest |value|, else f8e5m2 (f8e4m3fn when
    // there is no finite nonzero value). Example: {0.01, -0.5, 3} gives f8e4m3fn (8.2 binades);
    // {1e-9, 1e-3} with max_share 0 gives f8e5m2 (19.9 binades, more than E4M3's 17.8).
    // BEGIN SOLUTION
    const std::vector<double> all = values.to_vector();
    std::vector<double> magnitudes;
    for (double v : all)
        if (v != 0 && std::isfinite(v)) magnitudes.push_back(std::abs(v));
    if (magnitudes.empty()) return f8e4m3fn;
    const double largest = *std::max_element(magnitudes.begin(), magnitudes.end());
    const minifloat::Format& e4m3 = minifloat::f8e4m3fn;
    const double window = range_binades(e4m3.exponent_bits, e4m3.mantissa_bits, e4m3.bias, e4m3.specials);
    const auto outside = std::count_if(magnitudes.begin(), magnitudes.end(), [&](double m) { return std::log2(largest / m) > window; });
    return double(outside) / double(magnitudes.size()) <= max_share ? f8e4m3fn : f8e5m2;
    // END SOLUTION
}

}  // namespace tinyamp::lab17
