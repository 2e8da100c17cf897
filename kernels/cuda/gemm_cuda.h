#pragma once
// GEMM on CUDA through cuBLAS (cublasGemmStridedBatchedEx), over row-major device buffers, in
// the argument order of kernels/cpu/gemm.h plus a batch:
//
//   C_i[m, n] = alpha * op(A_i)[m, k] * op(B_i)[k, n] + beta * C_i[m, n],  i < batch,
//   A_i = a + i * stride_a (stride 0: every product shares one A), same for B and C.
//
// f16 and bf16 inputs and outputs multiply on tensor cores and accumulate in f32
// (CUBLAS_COMPUTE_32F); f32 uses CUBLAS_COMPUTE_32F too, f64 CUBLAS_COMPUTE_64F.

#include <cstdint>

#include "tinyamp/values/dtype.h"

namespace tinyamp::kernels::cuda {

enum class Transpose : bool { no = false, yes = true };

void gemm(DType dtype, Transpose trans_a, Transpose trans_b, std::int64_t m, std::int64_t n, std::int64_t k, double alpha, const void* a,
          std::int64_t lda, std::int64_t stride_a, const void* b, std::int64_t ldb, std::int64_t stride_b, double beta, void* c,
          std::int64_t ldc, std::int64_t stride_c, std::int64_t batch, int device);

}  // namespace tinyamp::kernels::cuda
