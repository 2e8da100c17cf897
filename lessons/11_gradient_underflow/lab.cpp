// Lab 11: gradient underflow. Fill in each TODO; check with:  scripts/lab check 11
// Stuck? scripts/lab hint 11.1 gives a hint, a stronger one each time you ask.
#include "lessons/11_gradient_underflow/lab.h"

#include <algorithm>
#include <cmath>

#include "lessons/support/lab.h"

namespace tinyamp::lab11 {

double f16_underflow_share(const Tensor& values)
{
    // TODO(lab 11.1): return the share of the finite, nonzero elements of `values` that become
    // exactly 0 when stored in f16 (0 when there are none). Example: {1e-3, 1e-8, 3e-8, 2.9e-8, 0, 1}
    // gives 0.4: of its 5 nonzero values, 1e-8 and 2.9e-8 become 0 (3e-8 rounds up to 2^-24).
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
    // TODO(lab 11.2): count the finite nonzero values by their power of two: bin i counts those with
    // floor(log2 |v|) == lo + i; values below 2^lo go in the first bin, those at or above 2^hi in the
    // last. Example: {1, 1.5, 0.25, 0.3, 2^-30, 0, -4} with lo -3 and hi 3 gives {1, 2, 0, 2, 0, 1}.
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
    // TODO(lab 11.3): return the smallest power of two S (1, 2, 4, ...) for which at most max_share of
    // the finite nonzero values of S * values become 0 in f16; throw tinyamp::Error (kind value) when
    // S times the largest |value| overflows f16 before that. Example: {1e-9, 1e-6, 1e-3} with
    // max_share 0 gives 32; {1e-12, 1000} throws (32768 * 1000 is inf in f16).
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
