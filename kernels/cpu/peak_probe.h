#pragma once
// How fast one core runs the instruction a GEMM tier multiplies with, in registers: no memory, no
// packing, just independent multiply-adds back to back. It is the ceiling that tier's
// micro-kernel aims at, and so what the hardware promises before any GEMM is timed: lesson 1
// compares f32's with bf16's, because feature flags alone do not say it (vdpbf16ps doubles the
// multiply-adds per cycle on an AMD Zen 4, and gives none on an Intel Xeon whose two f32 FMA units
// keep up with it).

#include "kernels/cpu/gemm.h"

namespace tinyamp::kernels::cpu {

/// GFLOP/s (two per multiply-add) of one core running the instruction `tier` multiplies In with:
/// the tier's f32 FMA for f32 and for f16/bf16 widened to f32 (avx2: 256-bit vfmadd, avx512 and
/// up: 512-bit), vdpbf16ps for bf16 on avx512_bf16, tdpbf16ps for bf16 on amx. The best of 5
/// runs of at least a millisecond each. 0 for the portable tier (no one instruction: the
/// reference loops are whatever the compiler made of them) and for a tier the CPU lacks.
template <class In>
double instruction_peak_gflops(GemmTier tier);

}  // namespace tinyamp::kernels::cpu
