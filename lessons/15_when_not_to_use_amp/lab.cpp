// Lab 15: when 16 bits are not enough. Fill in each TODO; check with:  scripts/lab check 15
// Stuck? scripts/lab hint 15.1 gives a hint, a stronger one each time you ask.
#include "lessons/15_when_not_to_use_amp/lab.h"

#include "lessons/support/lab.h"

namespace tinyamp::lab15 {

double running_sum(const std::vector<double>& values, DType dtype)
{
    // TODO(lab 15.1): return the sum of `values`, added left to right, with each value rounded to
    // `dtype` and the running sum rounded to `dtype` after every addition (as a 16-bit accumulator
    // does). Example: 3000 ones sum to 3000 in f32, 2048 in f16 and 256 in bf16.
    // BEGIN SOLUTION
    Tensor acc = zeros({}, dtype);
    for (double value : values) acc = add(acc, scalar_tensor(value, dtype));
    return acc.item();
    // END SOLUTION
}

double stall_point(double value, DType dtype, std::int64_t max_adds)
{
    // TODO(lab 15.2): add `value` (rounded to `dtype`) to a running sum in `dtype` that starts at 0,
    // at most max_adds times, and return the sum where an addition first leaves it unchanged, or the
    // sum after max_adds additions if none does. Example: 1.0 stalls at 2048 in f16; in f32 it does
    // not stall within 1000 adds, so 1.0 with max_adds 1000 gives 1000.
    // BEGIN SOLUTION
    const Tensor v = scalar_tensor(value, dtype);
    Tensor acc = zeros({}, dtype);
    for (std::int64_t i = 0; i < max_adds; ++i) {
        const Tensor next = add(acc, v);
        if (next.item() == acc.item()) return acc.item();
        acc = next;
    }
    return acc.item();
    // END SOLUTION
}

double sum_with_f32_accumulator(const std::vector<double>& values, DType dtype)
{
    // TODO(lab 15.3): return the sum of `values` as a reduction kernel computes it: the values
    // rounded to `dtype`, accumulated in f32, and the total rounded once to `dtype`. Example: 10000
    // times 0.001 gives 10.0 in bf16 (where the running sum stalls at 0.5) and 10.0078125 in f16.
    // BEGIN SOLUTION
    const Tensor t = tensor(values, {std::int64_t(values.size())}, dtype);
    return sum(t, f32).to(dtype).item();
    // END SOLUTION
}

DType choose_low_dtype(double largest, double smallest)
{
    // TODO(lab 15.4): return f16 when magnitudes from `smallest` to `largest` all fit f16's normal
    // range (f16 has 3 more bits of precision), else bf16 when they fit bf16's normal range, else
    // f32; a limit itself fits. Example: (1000, 0.01) gives f16, (1e5, 0.01) and (10, 1e-6) give
    // bf16, (1e39, 1) gives f32.
    // BEGIN SOLUTION
    auto fits = [&](DType d) { return largest <= traits(d).max && smallest >= traits(d).min_normal; };
    if (fits(f16)) return f16;
    if (fits(bf16)) return bf16;
    return f32;
    // END SOLUTION
}

}  // namespace tinyamp::lab15
