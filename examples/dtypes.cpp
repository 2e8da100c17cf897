// dtypes: the floating point formats of mixed precision, side by side.
// Each step says what to expect, then shows it; the program exits non-zero if what it shows
// ever disagrees with what it said.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>

#include <tinyamp/tinyamp.h>

using namespace tinyamp;

namespace {

int failures = 0;

void claim(bool holds, const std::string& what)
{
    std::cout << (holds ? "   ok: " : "   WRONG: ") << what << '\n';
    if (!holds) ++failures;
}

void print_traits_table()
{
    std::printf("%-5s %5s %8s %8s  %-13s %-15s %-18s %-11s\n", "dtype", "bytes", "exp bits", "mantissa", "max",
                "smallest normal", "smallest subnormal", "eps");
    for (DType d : kComputeDTypes) {  // the FP8/FP4 formats have their own table (minifloat::print_traits_table)
        const DTypeTraits& t = traits(d);
        if (t.is_floating_point)
            std::printf("%-5s %5d %8d %8d  %-13.6g %-15.6g %-18.6g %-11.6g\n", t.name, t.size, t.exponent_bits, t.mantissa_bits, t.max,
                        t.min_normal, t.min_subnormal, t.eps);
        else
            std::printf("%-5s %5d %8s %8s  %-13.6g %-15s %-18s %-11s\n", t.name, t.size, "-", "-", t.max, "-", "-", "-");
    }
}

// One value stored in each of the three training dtypes, printed with its bits.
void show_in_each(double value)
{
    for (DType d : {f32, f16, bf16}) {
        const Tensor t = scalar_tensor(value, d);
        std::printf("   %-4s  %-14s bits %s\n", dtype_name(d), t.to_string().substr(7, t.to_string().find(',') - 7).c_str(),
                    bit_pattern(value, d).c_str());
    }
}

}  // namespace

int main()
{
    std::cout << "tinyamp " << TINYAMP_VERSION << ": the number formats of mixed precision\n\n";
    print_traits_table();

    std::cout << "\n1) Precision. Expect: 1 + 1e-4 survives in f32 (eps 1.2e-07), but f16 (eps 0.00098) and\n"
                 "   bf16 (eps 0.0078) have no number that close to 1, so it rounds back to exactly 1.\n";
    show_in_each(1.0 + 1e-4);
    claim(scalar_tensor(1.0 + 1e-4, f32).item() > 1.0, "f32 keeps 1 + 1e-4 above 1");
    claim(scalar_tensor(1.0 + 1e-4, f16).item() == 1.0, "f16 rounds 1 + 1e-4 to 1");
    claim(scalar_tensor(1.0 + 1e-4, bf16).item() == 1.0, "bf16 rounds 1 + 1e-4 to 1");

    std::cout << "\n2) Range. Expect: 65504 is the largest f16; twice that overflows to inf in f16, while\n"
                 "   bf16, with f32's 8 exponent bits, holds it (rounded to 8 significant bits).\n";
    show_in_each(65504.0);
    show_in_each(2 * 65504.0);
    claim(scalar_tensor(65504.0, f16).item() == 65504.0, "65504 is exact in f16");
    claim(std::isinf(scalar_tensor(2 * 65504.0, f16).item()), "131008 overflows to inf in f16");
    claim(std::isfinite(scalar_tensor(2 * 65504.0, bf16).item()), "131008 is finite in bf16");

    std::cout << "\n3) Underflow. Expect: f16's smallest positive number is 5.96e-08, so 1e-08 flushes to 0 in f16;\n"
                 "   bf16 reaches down to 9.2e-41 and keeps it, with about 3 significant digits.\n";
    show_in_each(1e-8);
    claim(scalar_tensor(1e-8, f16).item() == 0.0, "1e-8 underflows to 0 in f16");
    const double in_bf16 = scalar_tensor(1e-8, bf16).item();
    claim(in_bf16 > 0 && std::abs(in_bf16 - 1e-8) < 1e-8 * traits(bf16).eps, "1e-8 stays 1e-8 (within bf16's eps) in bf16");

    std::cout << "\nThis is why fp16 training scales the loss (gradients like 1e-8 would vanish) and why\n"
                 "bf16 needs no scaler but keeps fewer digits.\n\n"
              << "CPU features used for conversions: " << cpu_features_str() << "\n"
              << "CUDA: " << (cuda_built() ? std::to_string(cuda_device_count()) + " device(s)" : std::string("not built"))
              << (cuda_device_count() == 0 && cuda_built() ? " (" + cuda_unavailable_reason() + ")" : std::string()) << "\n";
    if (failures) {
        std::cout << failures << " claim(s) did not hold\n";
        return 1;
    }
    std::cout << "all claims held\n";
    return 0;
}
