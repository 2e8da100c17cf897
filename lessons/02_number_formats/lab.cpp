// Lab 02: number formats. Fill in each TODO; check with:  scripts/lab check 02
// Stuck? scripts/lab hint 02.1 gives a hint, a stronger one each time you ask.
#include "lessons/02_number_formats/lab.h"

#include <cmath>

#include "lessons/support/lab.h"

namespace tinyamp::lab02 {

double round_to(double value, DType dtype)
{
    // TODO(lab 02.1): return `value` as `dtype` stores it: the nearest number of `dtype` (a tie
    // goes to the even one), inf past the largest, 0 below half the smallest. Example:
    // round_to(2049, f16) is 2048, round_to(65520, f16) is inf, round_to(1e-8, f16) is 0.
    // BEGIN SOLUTION
    return scalar_tensor(value, dtype).item();
    // END SOLUTION
}

double spacing_at(double x, DType dtype)
{
    // TODO(lab 02.2): for a positive normal number x of `dtype`, return the gap from x to the next
    // larger number of `dtype`. Example: spacing_at(1, bf16) is 2^-7 = 0.0078125,
    // spacing_at(3000, f16) is 2.
    // BEGIN SOLUTION
    const int e = static_cast<int>(std::floor(std::log2(x)));
    return std::ldexp(1.0, e - traits(dtype).mantissa_bits);
    // END SOLUTION
}

bool survives_in(double value, DType dtype)
{
    // TODO(lab 02.3): return whether `value` survives storage in `dtype`: stored, it is still
    // finite and, unless it was 0, still non-zero (being rounded is not a loss). Example: 1e-8
    // does not survive f16 (it becomes 0) but survives bf16; 1 + 1e-4 survives f16 (as 1).
    // BEGIN SOLUTION
    const double r = round_to(value, dtype);
    return std::isfinite(r) && (value == 0 || r != 0);
    // END SOLUTION
}

}  // namespace tinyamp::lab02
