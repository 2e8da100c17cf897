#pragma once
// What this CPU can do, read once at run time, so one binary runs fast on a new CPU and still
// runs on an old one. TINYAMP_CPU in the environment caps what tinyamp uses (to compare tiers,
// or to hunt a bug in a fast path):
//   portable    no vector instructions at all: the reference kernels
//   avx2        AVX2, FMA and F16C, nothing of AVX-512
//   avx512      also AVX-512F/BW/VL, but not AVX-512 BF16
//   avx512bf16  also AVX-512 BF16, but not AMX
//   amx         everything this CPU has, AMX tiles included
// A cap never adds what the CPU lacks. Any other value is ignored with a warning on stderr.
//
// AMX is used wherever the CPU and Linux allow it (kAmxOnByDefault). Its GEMM tier was written and
// tested on an emulation of the tile instructions (gemm_amx_tiles.h), then on 2026-11-26 its tests,
// the whole test suite, the tour and the training tests passed on an Intel Xeon with AMX (docs/
// benchmarks.md), which turned it on. TINYAMP_CPU=avx512bf16 leaves it out.
// TINYAMP_DEBUG=1 prints, once, what was detected and why AMX is or is not used.

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
    bool amx_bf16 = false;    ///< AMX tiles and tdpbf16ps, with the OS's and Linux's leave to use them
    std::string str() const;  ///< e.g. "f16c avx2 fma avx512f avx512bf16 amx" or "portable"
};

/// Whether the AMX tier is used without TINYAMP_CPU=amx: true since its tests passed on a CPU with
/// AMX (see the top of this file); false would keep it for TINYAMP_CPU=amx alone.
inline constexpr bool kAmxOnByDefault = true;

/// The features tinyamp may use: what the CPU has, capped by TINYAMP_CPU (read once).
const CpuFeatures& cpu_features();
/// `detected` capped by a TINYAMP_CPU value; std::nullopt when the value is not one of
/// portable, avx2, avx512, avx512bf16, amx. An empty value means "unset": everything but AMX
/// unless kAmxOnByDefault.
std::optional<CpuFeatures> cap_cpu_features(const CpuFeatures& detected, std::string_view setting);
/// What the CPU itself reports, ignoring TINYAMP_CPU (tests use it to reach every path). On a
/// CPU with AMX this asks Linux for the tile state (arch_prctl ARCH_REQ_XCOMP_PERM) once.
CpuFeatures detect_cpu_features();
/// Why this machine cannot use AMX ("" when it can): the CPU lacks it, the OS does not enable the
/// tile state, or Linux refused it (with the error).
std::string amx_unavailable_reason();
/// AMX as tinyamp uses it, in words, for TINYAMP_DEBUG and the benchmark's header: "in use (the amx
/// GEMM tier)", "available but off: ...", "available, left out by TINYAMP_CPU=..." or
/// "not available: <amx_unavailable_reason()>". `setting` is TINYAMP_CPU's value ("" when unset).
std::string amx_status(const CpuFeatures& detected, const CpuFeatures& in_use, std::string_view setting);
/// The CPU's name: /proc/cpuinfo's "model name", else CPUID's brand string, else "unknown CPU".
std::string cpu_model_name();

}  // namespace tinyamp::kernels::cpu
