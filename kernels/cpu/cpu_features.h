#pragma once
// What this CPU can do, read once at run time, so one binary runs fast on a new CPU and still
// runs on an old one. Setting TINYAMP_CPU=portable in the environment turns every fast path off
// (to compare against, or to hunt a bug in a fast path).

#include <string>

namespace tinyamp::kernels::cpu {

struct CpuFeatures {
    bool f16c = false;        ///< vcvtps2ph / vcvtph2ps: f32 <-> f16, 8 at a time
    bool avx2 = false;
    bool fma = false;
    bool avx512f = false;     ///< 512-bit registers (with BW and VL, which tinyamp also needs)
    bool avx512bf16 = false;  ///< vcvtneps2bf16 (f32 -> bf16) and vdpbf16ps (bf16 dot products)
    std::string str() const;  ///< e.g. "f16c avx2 fma avx512f avx512bf16" or "portable"
};

/// The features tinyamp may use: what the CPU has, unless TINYAMP_CPU=portable says otherwise.
const CpuFeatures& cpu_features();
/// What the CPU itself reports, ignoring TINYAMP_CPU (tests use it to reach every path).
CpuFeatures detect_cpu_features();

}  // namespace tinyamp::kernels::cpu
