#pragma once
/// \file
/// What this CPU brings to matrix products: its name, the instructions tinyamp's GEMM multiplies
/// f32 and bf16 with here, how fast one core runs each of them, and so what mixed precision can
/// gain in speed on this machine. Lessons 1, 14 and 15 state their speed claims from it, and the
/// benchmark prints it. PyTorch's nearest relative is `torch.backends.cpu.get_cpu_capability()`.

#include <string>

namespace tinyamp {

/// The CPU features tinyamp's fast kernels use on this machine, as one string. For example
/// "f16c avx2 fma avx512f avx512bf16" ("portable" when none, or when TINYAMP_CPU=portable is set).
std::string cpu_features_str();

}  // namespace tinyamp

namespace tinyamp::backends::cpu {

/// What a bf16 matrix product can gain over an f32 one on this CPU.
enum class Bf16Speed {
    /// bf16 is widened to f32 and multiplied by the same f32 units, or by a bf16 instruction that
    /// does no more multiply-adds per cycle than this core's f32 FMAs: no gain in speed (the
    /// bytes are still halved).
    not_faster,
    /// A bf16 dot-product instruction (vdpbf16ps) with more multiply-adds per cycle than the f32
    /// FMAs, as on an AMD Zen 4: faster, by less than the instruction's ratio.
    faster,
    /// A matrix engine (AMX tiles, Intel Xeon since Sapphire Rapids): several times faster, as
    /// Tensor Cores make f16/bf16 on a GPU.
    several_times_faster,
};

/// "not faster", "faster" or "several times faster".
const char* bf16_speed_name(Bf16Speed speed);

/// This CPU as tinyamp's matrix products see it (after the TINYAMP_CPU cap).
struct MatmulHardware {
    std::string cpu_name;          ///< "AMD EPYC 9B45" (/proc/cpuinfo's model name)
    std::string features;          ///< the features in use, as cpu_features_str(): "f16c avx2 fma"
    std::string f32_tier;          ///< the GEMM tier of a large f32 product: "portable", "avx2" or "avx512"
    std::string bf16_tier;         ///< the same for bf16: also "avx512_bf16" or "amx"
    std::string bf16_instruction;  ///< what multiplies bf16 there, in words
    double f32_peak_gflops = 0;    ///< one core running the f32 tier's FMA in registers (0 on the portable tier)
    double bf16_peak_gflops = 0;   ///< the same for the bf16 tier's instruction (equal to f32's when bf16 is widened)
    Bf16Speed bf16_speed = Bf16Speed::not_faster;  ///< what that means for a bf16 product
    std::string expectation;       ///< what to expect and why, in a few sentences for a student (each ends on the bytes bf16 saves)

    /// bf16_peak_gflops / f32_peak_gflops (1 when neither was measured).
    double peak_ratio() const;
};

/// The rule behind MatmulHardware::bf16_speed: a bf16 tier of "amx" is several times faster;
/// "avx512_bf16" is faster when its instruction does at least 1.5x f32's multiply-adds per second
/// in registers (`peak_ratio`; vdpbf16ps gives 2x on an AMD Zen 4, 1x on an Intel Xeon); any
/// other tier widens bf16 to f32 and is not faster.
Bf16Speed bf16_speed_of(const std::string& bf16_tier, double peak_ratio);

/// Reads the CPU and times the two instructions in registers (a few milliseconds, on the first
/// call; later calls return the same object).
const MatmulHardware& matmul_hardware();

}  // namespace tinyamp::backends::cpu
