#pragma once
// GEMM (general matrix multiply) over raw row-major buffers, in BLAS's argument order so it reads
// like the cblas_?gemm a student meets next, plus a bias epilogue:
//
//   C[m, n] = alpha * op(A)[m, k] * op(B)[k, n] + beta * C[m, n] + bias
//
// op(X) is X as stored or, with Transpose::yes, its transpose: the buffer then holds X^T row-major,
// so a transposed view of a tensor (as backward needs) is read in place, without a copy.
// `lda`, `ldb`, `ldc` are the leading dimensions: the distance in elements between two rows of the
// buffer as stored (at least its row length; larger for a sub-matrix of a wider one).
//
// Inputs `In` and output `Out` are the same dtype, or f16/bf16 inputs with an f32 output (C and
// the bias are then f32). Products accumulate in f32 for f16/bf16/f32 and in f64 for f64; each
// element of C is computed as ((alpha * sum) + beta * C) + bias in that type and rounded ONCE, when
// stored, as PyTorch's addmm does. With beta == 0, C is only written (its old contents may be
// garbage or NaN).
//
// gemm() picks, at run time, one of these implementations of the contract (a "tier"):
//  * portable: gemm_reference, readable i-k-j loops; the one faster tiers are tested against
//    (small products run gemm_small: the same loops over op(B) converted once, the same bits);
//  * avx2, avx512, avx512_bf16, amx: packed, cache-blocked, register-tiled kernels (gemm_fast.h),
//    used when the CPU has the instructions (cpu_features(), which TINYAMP_CPU can cap) and the
//    product is big enough to repay the packing.
// Their results differ from the reference only in the last bits (order of the f32 additions, FMA,
// and for avx512_bf16 and amx the flushing of subnormals; see docs/kernels.md).

#include <cstdint>

#include "tinyamp/values/half.h"

namespace tinyamp::kernels::cpu {

enum class Transpose : bool { no = false, yes = true };

/// Which way a bias vector is broadcast over C.
enum class BiasAlong {
    rows,     ///< bias[j], n values: the same vector added to every row (linear's bias)
    columns,  ///< bias[i], m values: the same vector added to every column (conv2d's bias, per output channel)
};

/// The optional bias of the epilogue, in C's dtype. `data == nullptr` means no bias.
template <class Out>
struct GemmBias {
    const Out* data = nullptr;
    BiasAlong along = BiasAlong::rows;
};

/// The implementations, slowest first. gemm() uses the best one the CPU allows.
enum class GemmTier {
    portable,     ///< gemm_reference (gemm_small for small products: the same bits)
    avx2,         ///< AVX2 + FMA, 6 x 16 f32 tile; f16 widened with F16C, bf16 with a shift, while packing
    avx512,       ///< AVX-512F + FMA, 8 x 32 f32 tile; f16/bf16 widened while packing
    avx512_bf16,  ///< bf16 only: the 8 x 32 tile fed pairs of bf16 by vdpbf16ps (f32 and f16 run the avx512 tier)
    amx,          ///< bf16 only: 32 x 32 of C in four AMX tiles, tdpbf16ps (f32 and f16 run the avx512 tier)
};
const char* gemm_tier_name(GemmTier tier);

struct CpuFeatures;

/// Instantiated for (In, Out) = (float, float), (double, double), (Half, Half), (BFloat16, BFloat16),
/// (Half, float) and (BFloat16, float). Dispatches to the best tier (gemm_tier below).
template <class In, class Out>
void gemm(Transpose trans_a, Transpose trans_b, std::int64_t m, std::int64_t n, std::int64_t k, double alpha, const In* a, std::int64_t lda,
          const In* b, std::int64_t ldb, double beta, Out* c, std::int64_t ldc, GemmBias<Out> bias = {});

/// The readable reference (same arguments), always available.
template <class In, class Out>
void gemm_reference(Transpose trans_a, Transpose trans_b, std::int64_t m, std::int64_t n, std::int64_t k, double alpha, const In* a,
                    std::int64_t lda, const In* b, std::int64_t ldb, double beta, Out* c, std::int64_t ldc, GemmBias<Out> bias = {});

/// The portable tier for small products (tiny layers, the last columns of a model): the
/// reference's loops and rounding over a copy of op(B) converted to the accumulator type once, so
/// its bits are the reference's (a test holds them equal). Products whose op(B) or row of C does
/// not fit its stack buffers (fits_gemm_small) run the reference itself.
template <class In, class Out>
void gemm_small(Transpose trans_a, Transpose trans_b, std::int64_t m, std::int64_t n, std::int64_t k, double alpha, const In* a,
                std::int64_t lda, const In* b, std::int64_t ldb, double beta, Out* c, std::int64_t ldc, GemmBias<Out> bias = {});
/// gemm_small's buffers: op(B) (k x n) and one row of C (n) in the accumulator type, 32 KiB of f64 each.
inline constexpr std::int64_t kGemmSmallMaxElements = 4096;
constexpr bool fits_gemm_small(std::int64_t n, std::int64_t k) { return n <= kGemmSmallMaxElements && n * k <= kGemmSmallMaxElements; }

/// The dispatcher's choice for inputs of type In and this size on a CPU with `features` (gemm
/// itself asks with cpu_features()).
template <class In>
GemmTier gemm_tier(std::int64_t m, std::int64_t n, std::int64_t k, const CpuFeatures& features);

/// The best tier `features` allow for In, whatever the size (tests use it to reach every tier).
template <class In>
GemmTier best_gemm_tier(const CpuFeatures& features);

/// How many threads a blocked tier uses for an m x n x k product: get_num_threads() (see
/// tinyamp/support/parallel.h), but no more than pays: one per 2^19 multiply-adds, and no more than
/// the CPU has cores. Each element of C is computed by one thread in the same order whatever the
/// count, so the result's bits do not depend on it.
int gemm_thread_count(std::int64_t m, std::int64_t n, std::int64_t k);

}  // namespace tinyamp::kernels::cpu
