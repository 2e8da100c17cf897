#pragma once
// What this CPU can do, read once at run time, so one binary runs fast on a new CPU and still
// runs on an old one. TINYAMP_CPU in the environment caps what tinyamp uses (to compare tiers,
// or to hunt a bug in a fast path):
//   portable    no vector instructions at all: the reference kernels
//   avx2        AVX2, FMA and F16C, nothing of AVX-512
//   avx512      also AVX-512F/BW/VL, but not AVX-512 BF16
//   avx512bf16  everything this CPU has (the same as leaving TINYAMP_CPU unset)
// A cap never adds what the CPU lacks. Any other value is ignored with a warning on stderr.

#include <optional>
#include <string>
#include <string_view>

namespace tinyamp::kernels::cpu {

struct CpuFeatures {
    bool f16c = false;        ///< vcvtps2ph / vcvtph2ps: f32 <-> f16, 8 at a time
    bool avx2 = false;
    bool fma = false;
    bool avx512f = false;     ///< 512-bit registers (with BW and VL, which tinyamp also needs)
    bool avx512bf16 = false;  ///< vcvtneps2bf16 (f32 -> bf16) and vdpbf16ps (bf16 dot products)
    std::string str() const;  ///< e.g. "f16c avx2 fma avx512f avx512bf16" or "portable"
};

/// The features tinyamp may use: what the CPU has, capped by TINYAMP_CPU (read once).
const CpuFeatures& cpu_features();
/// `detected` capped by a TINYAMP_CPU value; std::nullopt when the value is not one of
/// portable, avx2, avx512, avx512bf16.
std::optional<CpuFeatures> cap_cpu_features(const CpuFeatures& detected, std::string_view setting);
/// What the CPU itself reports, ignoring TINYAMP_CPU (tests use it to reach every path).
CpuFeatures detect_cpu_features();

}  // namespace tinyamp::kernels::cpu
