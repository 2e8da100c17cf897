// Lab 17: the FP8 formats. Fill in each TODO; check with:  build/lessons/lab_17
#include "lessons/17_fp8_formats/lab.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "lessons/support/lab.h"

namespace tinyamp::lab17 {

double relative_error_bound(DType dtype)
{
    // TODO(lab 17.1): with M mantissa bits, the numbers between 1 and 2 are 2^-M apart; a value
    // rounded to the nearest one is off by at most half of that, relative to a value >= 1.
    // Hint: traits(dtype).mantissa_bits; std::ldexp(1.0, k) is 2^k.
    // BEGIN SOLUTION
    return std::ldexp(1.0, -traits(dtype).mantissa_bits - 1);
    // END SOLUTION
}

double range_binades(int exponent_bits, int mantissa_bits, int bias, minifloat::Specials specials)
{
    // TODO(lab 17.2): the smallest positive number is the smallest subnormal, 2^(1 - bias - M).
    // The largest is 1.f * 2^(top field - bias) with the largest fraction f the format allows:
    //   ieee:   the all-ones exponent field is inf and NaN: top field 2^E - 2, fraction all ones;
    //   fn:     the all-ones field holds numbers, only its all-ones fraction is NaN: top field
    //           2^E - 1, fraction all ones but the last bit;
    //   finite: every code is a number: top field 2^E - 1, fraction all ones.
    // Return log2(largest / smallest).
    // Hint: with the fraction as an integer k (0 .. 2^M - 1), 1.f is (2^M + k) / 2^M.
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
    // TODO(lab 17.3): cast to `dtype` and back to f32, then count, among the finite nonzero
    // originals, those that came back as 0.
    // Hint: values.to(dtype).to(f32).to_vector() and values.to_vector(), element by element.
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
    // TODO(lab 17.4): find the largest |v| over the finite nonzero values; count those with
    // log2(largest / |v|) above E4M3's range (your range_binades of E4M3's layout), and compare
    // their share of the finite nonzero values with max_share.
    // Hint: minifloat::f8e4m3fn has the fields exponent_bits, mantissa_bits, bias, specials.
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
