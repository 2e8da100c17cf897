// Lab 2: number formats. Fill in each TODO; check with:  build/lessons/labs -ts=lab02
#include "lessons/02_number_formats/lab.h"

#include <cmath>

#include "lessons/support/lab.h"

namespace tinyamp::lab02 {

double round_to(double value, DType dtype)
{
    // TODO(lab 02.1): store `value` in a tensor of `dtype` and read it back.
    // Hint: scalar_tensor(value, dtype) makes a 0-d tensor; .item() reads it as a double.
    // BEGIN SOLUTION
    return scalar_tensor(value, dtype).item();
    // END SOLUTION
}

double spacing_at(double x, DType dtype)
{
    // TODO(lab 02.2): between 2^e and 2^(e+1) the numbers of `dtype` are 2^(e - mantissa bits) apart.
    // Hint: traits(dtype).mantissa_bits; std::floor(std::log2(x)) is e; std::ldexp(1.0, k) is 2^k.
    // BEGIN SOLUTION
    const int e = static_cast<int>(std::floor(std::log2(x)));
    return std::ldexp(1.0, e - traits(dtype).mantissa_bits);
    // END SOLUTION
}

bool survives_in(double value, DType dtype)
{
    // TODO(lab 02.3): round `value` to `dtype` (your round_to) and say whether it is still finite
    // and, unless `value` was 0, still non-zero.
    // BEGIN SOLUTION
    const double r = round_to(value, dtype);
    return std::isfinite(r) && (value == 0 || r != 0);
    // END SOLUTION
}

}  // namespace tinyamp::lab02
