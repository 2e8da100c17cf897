// Lab 11: gradient underflow. Fill in each TODO; check with:  build/lessons/lab_11
#include "lessons/11_gradient_underflow/lab.h"

#include <algorithm>
#include <cmath>

#include "lessons/support/lab.h"

namespace tinyamp::lab11 {

double f16_underflow_share(const Tensor& values)
{
    // TODO(lab 11.1): store the values in f16 and count, among the finite nonzero originals, those
    // that came back as 0.
    // Hint: values.to(f16).to_vector() and values.to_vector() give both as doubles, element by element;
    // std::isfinite.
    // BEGIN SOLUTION
    const std::vector<double> original = values.to_vector(), in_f16 = values.to(f16).to_vector();
    double carrying = 0, lost = 0;
    for (std::size_t i = 0; i < original.size(); ++i) {
        if (original[i] == 0 || !std::isfinite(original[i])) continue;
        ++carrying;
        if (in_f16[i] == 0) ++lost;
    }
    return carrying == 0 ? 0.0 : lost / carrying;
    // END SOLUTION
}

std::vector<std::int64_t> log2_histogram(const Tensor& values, int lo, int hi)
{
    // TODO(lab 11.2): one bin per power of two from 2^lo up to 2^hi; clamp the bin index into range.
    // Hint: std::floor(std::log2(std::abs(v))) is v's power of two; std::clamp(i, 0, hi - lo - 1).
    // BEGIN SOLUTION
    std::vector<std::int64_t> counts(static_cast<std::size_t>(hi - lo), 0);
    for (double v : values.to_vector()) {
        if (v == 0 || !std::isfinite(v)) continue;
        const int e = static_cast<int>(std::floor(std::log2(std::abs(v))));
        ++counts[static_cast<std::size_t>(std::clamp(e - lo, 0, hi - lo - 1))];
    }
    return counts;
    // END SOLUTION
}

double smallest_saving_scale(const Tensor& values, double max_share)
{
    // TODO(lab 11.3): try S = 1, 2, 4, ... : stop at the first whose f16 underflow share (your
    // f16_underflow_share of mul(values, S)) is at most max_share; throw if S * max|value| overflows first.
    // Hint: trace::compute_stats(values).max_abs; std::isinf(scalar_tensor(x, f16).item()) says x overflows
    // f16; throw Error(ErrorKind::value, "...").
    // BEGIN SOLUTION
    const double largest = trace::compute_stats(values).max_abs;
    for (double s = 1;; s *= 2) {
        if (std::isinf(scalar_tensor(largest * s, f16).item()))
            throw Error(ErrorKind::value, "no scale saves the small values without overflowing the largest in f16");
        if (f16_underflow_share(mul(values, s)) <= max_share) return s;
    }
    // END SOLUTION
}

}  // namespace tinyamp::lab11
