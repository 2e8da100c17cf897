#pragma once
// The fast GEMM tiers behind gemm() in gemm.h, and a way to call one of them by name (the tests
// reach every tier the CPU has this way, whatever TINYAMP_CPU says).
//
// Each tier is the same blocked algorithm (gemm_blocked.h: packing, cache blocking, threads, the
// epilogue) around its own register-tiled micro-kernel, in a file of its own:
//   gemm_avx2.cpp         6 x 16 tile of f32 in 12 ymm registers (AVX2 + FMA)
//   gemm_avx512.cpp       8 x 32 tile of f32 in 16 zmm registers (AVX-512F + FMA; gemm_avx512_kernel.h)
//   gemm_avx512_bf16.cpp  the same tile fed by vdpbf16ps, two bf16 products per lane and step
//   gemm_amx.cpp          32 x 32 of C in four AMX tiles of 16 x 16 f32, fed by tdpbf16ps
// Every function that uses vector instructions gets them from a target attribute, not a file-wide
// -m flag, so no other code can pick up instructions the CPU may lack.

#include <cstdint>

#include "kernels/cpu/gemm.h"

namespace tinyamp::kernels::cpu {

/// All the arguments of one gemm call, as one value the tiers pass around.
template <class In, class Out>
struct GemmProblem {
    Transpose trans_a, trans_b;
    std::int64_t m, n, k;
    double alpha;
    const In* a;
    std::int64_t lda;
    const In* b;
    std::int64_t ldb;
    double beta;
    Out* c;
    std::int64_t ldc;
    GemmBias<Out> bias;
};

/// Runs the product on `tier` (which the CPU must support: best_gemm_tier() at least as high).
/// `threads`: 0 picks gemm_thread_count(m, n, k); 1, 2, ... force that many (tests use it).
/// GemmTier::avx512_bf16 and GemmTier::amx run f32 and f16 inputs on the avx512 tier (they only
/// add a bf16 kernel).
template <class In, class Out>
void gemm_on_tier(GemmTier tier, int threads, Transpose trans_a, Transpose trans_b, std::int64_t m, std::int64_t n, std::int64_t k,
                  double alpha, const In* a, std::int64_t lda, const In* b, std::int64_t ldb, double beta, Out* c, std::int64_t ldc,
                  GemmBias<Out> bias = {});

// The tiers' entry points (In: float, Half or BFloat16; Out: In or float).
namespace avx2 {
template <class In, class Out>
void gemm_avx2(const GemmProblem<In, Out>& problem, int threads);
}
namespace avx512 {
template <class In, class Out>
void gemm_avx512(const GemmProblem<In, Out>& problem, int threads);
}
namespace avx512_bf16 {
template <class Out>
void gemm_avx512_bf16(const GemmProblem<BFloat16, Out>& problem, int threads);
}
namespace amx {
template <class Out>
void gemm_amx(const GemmProblem<BFloat16, Out>& problem, int threads);
/// The amx tier's code (packing, blocking, kernel, epilogue) with each tile instruction carried
/// out by EmulatedTiles (gemm_amx_tiles.h) instead of the CPU: runs on any CPU, a thousand times
/// slower. The tests use it to check the tier on machines without AMX.
template <class Out>
void gemm_amx_emulated(const GemmProblem<BFloat16, Out>& problem, int threads);
}  // namespace amx

}  // namespace tinyamp::kernels::cpu
