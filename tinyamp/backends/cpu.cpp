#include "tinyamp/backends/cpu.h"

#include <algorithm>
#include <cstdio>

#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/peak_probe.h"

namespace tinyamp {

std::string cpu_features_str() { return kernels::cpu::cpu_features().str(); }

}  // namespace tinyamp

namespace tinyamp::backends::cpu {
namespace {

namespace k = kernels::cpu;

std::string gflops(double value)
{
    char text[32];
    std::snprintf(text, sizeof(text), "%.0f", value);
    return text;
}

std::string ratio(double value)
{
    char text[32];
    std::snprintf(text, sizeof(text), "%.1fx", value);
    return text;
}

// What to expect, for a student: the instruction, its peak against f32's, and the conclusion.
std::string expectation_of(const MatmulHardware& hw, k::GemmTier bf16_tier)
{
    const std::string peaks = "In registers one core runs bf16 at " + gflops(hw.bf16_peak_gflops) + " GFLOP/s against " +
                              gflops(hw.f32_peak_gflops) + " for f32 (" + ratio(hw.peak_ratio()) + ")";
    switch (bf16_tier) {
        case k::GemmTier::amx:
            return "This CPU has a matrix engine, AMX: one tdpbf16ps multiplies a 16 x 32 bf16 tile by a 32 x 16 one. " + peaks +
                   ": expect bf16 products several times faster than f32, as Tensor Cores make them on a GPU; bf16 also halves the "
                   "bytes.";
        case k::GemmTier::avx512_bf16:
            if (hw.bf16_speed == Bf16Speed::faster)
                return "This CPU has a bf16 dot-product instruction, vdpbf16ps. " + peaks +
                       ": expect bf16 products faster than f32, by less than that (packing and memory take their share); bf16 also "
                       "halves the bytes.";
            return "This CPU has a bf16 dot-product instruction, vdpbf16ps, but it does no more multiply-adds per cycle than the "
                   "core's f32 FMA units. " + peaks + ": expect bf16 products no faster than f32; bf16 still halves the bytes.";
        case k::GemmTier::avx2:
        case k::GemmTier::avx512:
            return "This CPU has no bf16 arithmetic that tinyamp uses: bf16 is widened to f32 while the operands are packed, then "
                   "multiplied by the same f32 FMAs (" + gflops(hw.f32_peak_gflops) +
                   " GFLOP/s per core in registers). Expect bf16 products about as fast as f32, not faster; bf16 still halves the "
                   "bytes of weights and activations.";
        case k::GemmTier::portable: break;
    }
    return "No vector instructions are in use (TINYAMP_CPU=portable, or a CPU without AVX2 and FMA): the reference loops convert "
           "every bf16 to f32 as they read it. Expect bf16 products slower than f32; bf16 still halves the bytes.";
}

MatmulHardware describe()
{
    MatmulHardware hw;
    const k::CpuFeatures& features = k::cpu_features();
    const k::GemmTier f32_tier = k::best_gemm_tier<float>(features), bf16_tier = k::best_gemm_tier<BFloat16>(features);
    hw.cpu_name = k::cpu_model_name();
    hw.features = features.str();
    hw.f32_tier = k::gemm_tier_name(f32_tier);
    hw.bf16_tier = k::gemm_tier_name(bf16_tier);
    const bool own_bf16_instruction = bf16_tier == k::GemmTier::amx || bf16_tier == k::GemmTier::avx512_bf16;
    // The peaks are timed in turns, the best of three each: a core still raising its clock, or a
    // neighbour's burst, would otherwise slow one instruction's loop and not the other's, and
    // move the ratio that decides what the lessons claim.
    for (int round = 0; round < 3; ++round) {
        hw.f32_peak_gflops = std::max(hw.f32_peak_gflops, k::instruction_peak_gflops<float>(f32_tier));
        if (own_bf16_instruction) hw.bf16_peak_gflops = std::max(hw.bf16_peak_gflops, k::instruction_peak_gflops<BFloat16>(bf16_tier));
    }
    switch (bf16_tier) {
        case k::GemmTier::amx:
            hw.bf16_instruction = "tdpbf16ps (AMX tiles: 8192 bf16 multiply-adds per instruction)";
            break;
        case k::GemmTier::avx512_bf16:
            hw.bf16_instruction = "vdpbf16ps (AVX-512 BF16: two bf16 multiply-adds in each of 16 lanes)";
            break;
        case k::GemmTier::avx2:
        case k::GemmTier::avx512:
            hw.bf16_instruction = "the f32 FMAs (bf16 is widened to f32 while the operands are packed)";
            hw.bf16_peak_gflops = hw.f32_peak_gflops;  // the same instruction
            break;
        case k::GemmTier::portable:
            hw.bf16_instruction = "scalar f32 multiply-adds (the reference loops convert each bf16 as they read it)";
            break;
    }
    hw.bf16_speed = bf16_speed_of(hw.bf16_tier, hw.peak_ratio());
    hw.expectation = expectation_of(hw, bf16_tier);
    return hw;
}

}  // namespace

Bf16Speed bf16_speed_of(const std::string& bf16_tier, double peak_ratio)
{
    // vdpbf16ps either doubles f32's multiply-adds per second (AMD Zen 4) or matches them (Intel
    // Xeon, whose two f32 FMA units keep up with it); AMX multiplies them about tenfold. 1.5 sits
    // well between the first two.
    constexpr double kFasterPeakRatio = 1.5;
    if (bf16_tier == "amx") return Bf16Speed::several_times_faster;
    if (bf16_tier == "avx512_bf16" && peak_ratio >= kFasterPeakRatio) return Bf16Speed::faster;
    return Bf16Speed::not_faster;
}

const char* bf16_speed_name(Bf16Speed speed)
{
    switch (speed) {
        case Bf16Speed::not_faster: return "not faster";
        case Bf16Speed::faster: return "faster";
        case Bf16Speed::several_times_faster: return "several times faster";
    }
    return "?";
}

double MatmulHardware::peak_ratio() const
{
    if (f32_peak_gflops <= 0.0 || bf16_peak_gflops <= 0.0) return 1.0;
    return bf16_peak_gflops / f32_peak_gflops;
}

const MatmulHardware& matmul_hardware()
{
    static const MatmulHardware hw = describe();
    return hw;
}

}  // namespace tinyamp::backends::cpu
