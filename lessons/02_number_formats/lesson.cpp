// Lesson 2: the number formats of mixed precision, f32, f16 and bf16, side by side: their bits,
// their precision (1 + 1e-4), their range (65504) and their smallest numbers (5.96e-8).
#include <cmath>
#include <cstdio>
#include <iostream>

#include "lessons/support/lesson.h"

using namespace tinyamp;

namespace {

void print_traits_table()
{
    std::printf("   %-5s %5s %8s %8s  %-11s %-15s %-18s %-10s\n", "dtype", "bytes", "exp bits", "mantissa", "max", "smallest normal",
                "smallest subnormal", "eps");
    for (DType d : {f32, f16, bf16}) {
        const DTypeTraits& t = traits(d);
        std::printf("   %-5s %5d %8d %8d  %-11.5g %-15.5g %-18.5g %-10.5g\n", t.name, t.size, t.exponent_bits, t.mantissa_bits, t.max,
                    t.min_normal, t.min_subnormal, t.eps);
    }
}

double stored(double value, DType dtype) { return scalar_tensor(value, dtype).item(); }

// One value stored in each format, printed with its bits.
void show_in_each(double value)
{
    std::printf("   %.9g stored as\n", value);
    for (DType d : {f32, f16, bf16})
        std::printf("     %-4s %-14.9g bits %s\n", dtype_name(d), stored(value, d), bit_pattern(value, d).c_str());
}

// Measures the gap from x = 2^e to the next number of `d`: add ever larger powers of two to x
// until the sum no longer rounds back to x; what it rounds to is the next number.
lesson::Series spacing_series(DType d, const char* color)
{
    lesson::Series s{dtype_name(d), {}, {}, color, false};
    for (int e = -30; e <= 40; ++e) {
        const double x = std::ldexp(1.0, e);
        if (x > traits(d).max) break;
        if (x < traits(d).min_subnormal) continue;  // 0 in this format: no neighbour to measure
        int k = e - 60;
        while (stored(x + std::ldexp(1.0, k), d) == stored(x, d)) ++k;
        s.x.push_back(e);
        s.y.push_back(stored(x + std::ldexp(1.0, k), d) - x);
    }
    return s;
}

void step_precision(lesson::Lesson& L)
{
    L.step("Precision: 1 + 1e-4");
    L.expect("f32 keeps 1 + 1e-4 (its eps is 1.2e-7). f16 (eps 0.00098) and bf16 (eps 0.0078) have\n"
             "no number that close to 1, so 1 + 1e-4 rounds back to exactly 1.");
    show_in_each(1.0 + 1e-4);
    L.check(stored(1.0 + 1e-4, f32) > 1.0, "f32 keeps 1 + 1e-4 above 1");
    L.check(stored(1.0 + 1e-4, f16) == 1.0, "f16 rounds 1 + 1e-4 to 1");
    L.check(stored(1.0 + 1e-4, bf16) == 1.0, "bf16 rounds 1 + 1e-4 to 1");
    L.say("This is why weight updates (w += lr * grad, often 1e-4 of w) are lost in f16/bf16 weights,\n"
          "and why mixed precision keeps f32 master weights.");
}

void step_spacing(lesson::Lesson& L)
{
    L.step("Spacing grows with size: 2048 + 1 in f16");
    L.expect("f16 has 10 mantissa bits, so between 2048 and 4096 its numbers are 2 apart: 2049 is not one\n"
             "of them, and 2048 + 1 rounds (to even) back to 2048.");
    const Tensor big = full({1}, 2048.0, f16);
    const double sum = add(big, full({1}, 1.0, f16)).item();
    std::printf("   f16: 2048 + 1 = %s\n", lesson::fmt(sum).c_str());
    L.check(sum == 2048.0, "in f16, 2048 + 1 == 2048");
    L.write_plot("spacing",
                 lesson::LinePlot{"Gap to the next number, by size", "log2 |x|", "gap (log scale)", true,
                                  {spacing_series(f32, "#3c78dc"), spacing_series(bf16, "#e8862a"), spacing_series(f16, "#2a9d5c")},
                                  {{std::log2(65504.0), "f16 max 65504", "#2a9d5c"}, {std::log2(traits(f16).min_normal), "f16 min normal", "#2a9d5c"}},
                                  {}},
                 "The gap between neighbouring numbers: f16 and bf16 are far coarser than f32, and f16 stops at 65504.");
}

void step_range(lesson::Lesson& L)
{
    L.step("Range: 65504");
    L.expect("65504 is the largest f16; 131008 (twice that) overflows to inf in f16. bf16 has f32's\n"
             "8 exponent bits, so it holds 131008 (rounded to 8 significant bits) and reaches 3.4e38.");
    show_in_each(65504.0);
    show_in_each(131008.0);
    L.check(stored(65504.0, f16) == 65504.0, "65504 is exact in f16");
    L.check(std::isinf(stored(131008.0, f16)), "131008 overflows to inf in f16");
    L.check(std::isfinite(stored(131008.0, bf16)), "131008 is finite in bf16");
    L.check(traits(bf16).max > 3e38 && std::abs(traits(bf16).max / traits(f32).max - 1) < 0.01, "bf16's range is f32's (max about 3.4e38)");
}

void step_underflow(lesson::Lesson& L)
{
    L.step("Underflow: 5.96e-8");
    L.expect("f16's smallest positive number is 2^-24 = 5.96e-8 (a subnormal); 1e-8 is below half of it,\n"
             "so it becomes 0 in f16. bf16 reaches down to 9.2e-41 and keeps 1e-8, with about 3 digits.");
    show_in_each(5.96e-8);
    show_in_each(1e-8);
    L.check(stored(std::ldexp(1.0, -24), f16) == std::ldexp(1.0, -24), "2^-24 (5.96e-8) is the smallest f16 number");
    L.check(stored(1e-8, f16) == 0.0, "1e-8 underflows to 0 in f16");
    const double kept = stored(1e-8, bf16);
    L.check(kept > 0 && std::abs(kept - 1e-8) <= 1e-8 * traits(bf16).eps, "1e-8 stays 1e-8 (within bf16's eps) in bf16");
}

void step_summary(lesson::Lesson& L)
{
    L.step("Summary");
    L.say("f16 has precision but little range (gradients like 1e-8 vanish: loss scaling, lesson 12);\n"
          "bf16 has range but little precision (no scaler needed, but fewer digits).");
    L.key_result("1 + 1e-4 rounds to 1 in f16 and bf16, not in f32 (eps 9.8e-4, 7.8e-3, 1.2e-7)");
    L.key_result("f16 overflows above 65504 and flushes 1e-8 to 0; bf16 keeps both (f32's range)");
}

void run(lesson::Lesson& L)
{
    L.say("Every number in a computer is sign x 1.mantissa x 2^exponent. The three formats of mixed\n"
          "precision split their bits differently: more exponent bits give range, more mantissa bits precision.");
    print_traits_table();
    step_precision(L);
    step_spacing(L);
    step_range(L);
    step_underflow(L);
    step_summary(L);
}

const lesson::Registration registered{{2, "number_formats", "Number formats: f32, f16 and bf16",
                                       "range and precision of f32/f16/bf16 (eps, 65504, 5.96e-8)", run}};

}  // namespace
