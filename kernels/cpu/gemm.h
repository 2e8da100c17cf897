#pragma once
// The reference GEMM (general matrix multiply) over raw row-major buffers, in BLAS's argument
// order so it reads like the cblas_?gemm a student meets next:
//
//   C[m, n] = alpha * op(A)[m, k] * op(B)[k, n] + beta * C[m, n]
//
// op(X) is X as stored or, with Transpose::yes, its transpose: the buffer then holds X^T row-major,
// so a transposed view of a tensor (as backward needs) is read in place, without a copy.
// `lda`, `ldb`, `ldc` are the leading dimensions: the distance in elements between two rows of the
// buffer as stored (at least its row length; larger for a sub-matrix of a wider one).
//
// Products accumulate in f32 for f16/bf16/f32 and in f64 for f64; each element of C is rounded
// once, when stored. With beta == 0, C is only written (its old contents may be garbage or NaN).
//
// gemm() picks, at run time, between two implementations of this contract:
//  * gemm_reference: readable i-k-j loops, the reference that faster kernels are tested against;
//  * avx512::gemm (gemm_fast.h): packed, cache-blocked, register-tiled AVX-512 kernels for f32,
//    f16 and bf16, used when the CPU has the instructions (cpu_features(), so TINYAMP_CPU=portable
//    turns it off) and the product is big enough to repay the packing.
// Their results differ only in the last bits (order of the f32 additions, FMA; see gemm_fast.h).

#include <cstdint>

#include "tinyamp/core/half.h"

namespace tinyamp::kernels::cpu {

enum class Transpose : bool { no = false, yes = true };

struct CpuFeatures;

/// Instantiated for float, double, Half and BFloat16. Dispatches to the fast or reference path.
template <class T>
void gemm(Transpose trans_a, Transpose trans_b, std::int64_t m, std::int64_t n, std::int64_t k, double alpha, const T* a, std::int64_t lda,
          const T* b, std::int64_t ldb, double beta, T* c, std::int64_t ldc);

/// The readable reference (same arguments), always available.
template <class T>
void gemm_reference(Transpose trans_a, Transpose trans_b, std::int64_t m, std::int64_t n, std::int64_t k, double alpha, const T* a,
                    std::int64_t lda, const T* b, std::int64_t ldb, double beta, T* c, std::int64_t ldc);

/// The dispatcher's choice: true when gemm<T> of this size runs the fast kernel on a CPU with
/// `features` (gemm itself asks with cpu_features()).
template <class T>
bool gemm_uses_fast_path(std::int64_t m, std::int64_t n, std::int64_t k, const CpuFeatures& features);

}  // namespace tinyamp::kernels::cpu
