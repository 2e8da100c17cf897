// backends::cpu: what this CPU gives bf16 products. The rule is checked for every kind of CPU
// (bf16_speed_of), the description for the CPU the test runs on; no speed is asserted here (the
// peaks are measured, so only that they were).
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include <tinyamp/tinyamp.h>

#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/gemm.h"

using namespace tinyamp;
using backends::cpu::Bf16Speed;

TEST_CASE("bf16_speed_of: a matrix engine is several times faster, vdpbf16ps only where it out-runs the f32 FMAs, widening never")
{
    using backends::cpu::bf16_speed_of;
    CHECK(bf16_speed_of("amx", 11.0) == Bf16Speed::several_times_faster);
    CHECK(bf16_speed_of("avx512_bf16", 2.0) == Bf16Speed::faster);        // AMD Zen 4
    CHECK(bf16_speed_of("avx512_bf16", 1.0) == Bf16Speed::not_faster);    // Intel Xeon: two f32 FMA ports keep up
    CHECK(bf16_speed_of("avx512_bf16", 1.49) == Bf16Speed::not_faster);
    CHECK(bf16_speed_of("avx512_bf16", 1.5) == Bf16Speed::faster);
    for (const char* widening : {"avx512", "avx2", "portable"}) CHECK(bf16_speed_of(widening, 1.0) == Bf16Speed::not_faster);
    CHECK(std::string(backends::cpu::bf16_speed_name(Bf16Speed::several_times_faster)) == "several times faster");
}

TEST_CASE("matmul_hardware describes this CPU as the GEMM dispatcher sees it")
{
    namespace k = kernels::cpu;
    const backends::cpu::MatmulHardware& hw = backends::cpu::matmul_hardware();
    MESSAGE(hw.cpu_name << " (" << hw.features << "): f32 on " << hw.f32_tier << ", bf16 on " << hw.bf16_tier << " by " << hw.bf16_instruction
                        << "; peaks " << hw.f32_peak_gflops << " / " << hw.bf16_peak_gflops << " GFLOP/s; bf16 "
                        << backends::cpu::bf16_speed_name(hw.bf16_speed));
    CHECK(&hw == &backends::cpu::matmul_hardware());  // measured once
    CHECK(hw.cpu_name == k::cpu_model_name());
    CHECK(hw.features == cpu_features_str());
    CHECK(hw.f32_tier == k::gemm_tier_name(k::best_gemm_tier<float>(k::cpu_features())));
    CHECK(hw.bf16_tier == k::gemm_tier_name(k::best_gemm_tier<BFloat16>(k::cpu_features())));
    CHECK(hw.bf16_speed == backends::cpu::bf16_speed_of(hw.bf16_tier, hw.peak_ratio()));
    CHECK_FALSE(hw.bf16_instruction.empty());
    CHECK_FALSE(hw.expectation.empty());
    if (hw.f32_tier == "portable") {
        CHECK(hw.f32_peak_gflops == 0.0);  // nothing to measure
        CHECK(hw.peak_ratio() == 1.0);
    } else {
        CHECK(std::isfinite(hw.f32_peak_gflops));
        CHECK(hw.f32_peak_gflops > 0.0);
        CHECK(hw.bf16_peak_gflops > 0.0);
        CHECK(hw.peak_ratio() == doctest::Approx(hw.bf16_peak_gflops / hw.f32_peak_gflops));
    }
    if (hw.bf16_tier == "avx2" || hw.bf16_tier == "avx512") CHECK(hw.bf16_peak_gflops == hw.f32_peak_gflops);  // bf16 is widened
}
