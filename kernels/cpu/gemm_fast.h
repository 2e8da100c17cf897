#pragma once
// A fast GEMM for x86 CPUs with AVX-512, beside the readable reference in gemm.h. Same arguments,
// same contract (f32 accumulation, each C element rounded once, beta == 0 never reads C); only
// the order of the arithmetic differs. gemm<T>() in gemm.h picks this path at run time.
//
// How it is fast (the classic Goto/BLIS design, in four steps):
//
//  1. Register tiling. The micro-kernel computes an MR x NR = 8 x 32 tile of C in 16 zmm
//     registers of f32 (8 rows x two 16-lane vectors). Each step p of the k loop loads 32 values
//     of a row of op(B), broadcasts 8 values of a column of op(A) and does 16 FMAs: 512
//     multiply-adds for 10 loads, so the FMA units, not memory, set the pace.
//  2. Packing. op(A) is copied into panels of MR rows, stored so that the 8 values the kernel
//     needs at step p are adjacent (a[p * MR + i]); op(B) into panels of NR columns (b[p * NR + j]).
//     The kernel then reads both strictly sequentially. Packing is where transposes and leading
//     dimensions are handled (a transposed view is read in place), where edge panels are padded
//     with zeros (so the kernel has no edge cases), and where f16 is widened to f32 (vcvtph2ps).
//  3. Cache blocking. The k range is cut in blocks of KC steps, so one B micro-panel (KC x NR,
//     32 KiB) and one A micro-panel stay in L1/L2 while they are reused; rows in blocks of MC and
//     columns in blocks of NC keep the packed block of B (KC x NC) in L2.
//  4. Storing. Partial sums of a block of C live in an f32 buffer between k blocks; only when the
//     whole k range is summed is alpha * sum + beta * C computed (in f32, as the reference does)
//     and rounded once into T. With beta == 0, C is only written.
//
// bf16 uses vdpbf16ps (_mm512_dpbf16_ps), which multiplies PAIRS of bf16 and adds both products to
// an f32 lane. So bf16 panels hold pairs (k, k+1) of one row/column in each 32-bit slot, the k
// loop steps over pairs, and an odd k is padded with a zero.
//
// Two threads split the columns (or the rows when C is narrow) of large problems. Each element of
// C is computed by one thread, over the same KC blocks in the same order, so the result does not
// depend on the number of threads (tests check it bit for bit).
//
// What vdpbf16ps does to the numbers (Intel SDM, VDPBF16PS): the products of two bf16 are exact in
// f32 (8-bit x 8-bit significands). The instruction treats bf16 subnormal inputs as zero (DAZ),
// flushes subnormal results to zero (FTZ), always rounds to nearest even whatever MXCSR says, and
// raises no floating-point exceptions. The DAZ and FTZ parts are checked on this machine's Zen 4
// by the test "vdpbf16ps treats subnormal bf16 inputs and subnormal products as zero", and a
// probe confirmed that each addition is rounded (1 + 2^-24 + 2^-24 gives 1, not 1 + 2^-23). Per lane, the SDM adds the odd product first, then the even
// one, each addition rounded. So this path differs from the reference (which sums one product
// at a time, in k order, with separate multiply and add) in the last bits of the f32 sum: the
// order of additions differs (pairs, and KC blocks), the f32 and f16 kernels use fused
// multiply-add (one rounding instead of two), and bf16 values below 2^-126 count as zero. After
// the one rounding into f16/bf16 the results are mostly identical, and otherwise an ulp apart
// (tests allow 2 ulps of sum |a||b|); in f32 they agree within about k * eps * sum |a||b|.

#include <cstdint>

#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/gemm.h"

namespace tinyamp::kernels::cpu::avx512 {

/// Whether this CPU can run gemm<T> below: AVX-512F/BW/VL with FMA, plus F16C for Half and
/// AVX-512 BF16 for BFloat16. Never for double.
template <class T>
bool gemm_supported(const CpuFeatures& features);

/// The fast GEMM, same arguments as cpu::gemm. Call only when gemm_supported<T>() holds.
/// Instantiated for float, Half and BFloat16. `threads`: 0 (the default) uses two threads when
/// m * n * k is big enough to repay them, else one; 1 or 2 force that many (tests use it).
template <class T>
void gemm(Transpose trans_a, Transpose trans_b, std::int64_t m, std::int64_t n, std::int64_t k, double alpha, const T* a, std::int64_t lda,
          const T* b, std::int64_t ldb, double beta, T* c, std::int64_t ldc, int threads = 0);

}  // namespace tinyamp::kernels::cpu::avx512
