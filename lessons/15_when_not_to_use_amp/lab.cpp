// Lab 15: when 16 bits are not enough. Fill in each TODO; check with:  build/lessons/lab_15
#include "lessons/15_when_not_to_use_amp/lab.h"

#include "lessons/support/lab.h"

namespace tinyamp::lab15 {

double running_sum(const std::vector<double>& values, DType dtype)
{
    // TODO(lab 15.1): keep the sum in a 0-D tensor of `dtype`: acc = zeros({}, dtype); for each
    // value, acc = add(acc, scalar_tensor(value, dtype)). add() of two tensors of one dtype returns
    // that dtype, rounded once. Return acc.item().
    // BEGIN SOLUTION
    Tensor acc = zeros({}, dtype);
    for (double value : values) acc = add(acc, scalar_tensor(value, dtype));
    return acc.item();
    // END SOLUTION
}

double stall_point(double value, DType dtype, std::int64_t max_adds)
{
    // TODO(lab 15.2): like running_sum, but one value over and over: after each add compare the new
    // sum with the old one (.item() of each) and return the old one as soon as they are equal.
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
    // TODO(lab 15.3): put the values in a tensor of `dtype` (tensor(values, {n}, dtype) rounds them),
    // then sum(t, f32) accumulates them in f32 (PyTorch's dtype= argument, the one autocast's
    // fp32_set_opt_dtype sets). Round that f32 total once to `dtype`: .to(dtype).item().
    // BEGIN SOLUTION
    const Tensor t = tensor(values, {std::int64_t(values.size())}, dtype);
    return sum(t, f32).to(dtype).item();
    // END SOLUTION
}

DType choose_low_dtype(double largest, double smallest)
{
    // TODO(lab 15.4): compare with traits(f16).max and traits(f16).min_normal (65504 and 6.1e-5),
    // then with traits(bf16)'s (3.4e38 and 1.2e-38). The limits themselves fit.
    // BEGIN SOLUTION
    auto fits = [&](DType d) { return largest <= traits(d).max && smallest >= traits(d).min_normal; };
    if (fits(f16)) return f16;
    if (fits(bf16)) return bf16;
    return f32;
    // END SOLUTION
}

}  // namespace tinyamp::lab15
