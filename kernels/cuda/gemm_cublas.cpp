// GEMM through cuBLAS. Compiled by g++ (no kernels of its own), linked with CUDA::cublas.
//
// Row-major from column-major: cuBLAS reads a buffer as column-major, and a row-major [m, n]
// matrix read column-major is its transpose [n, m]. So we ask cuBLAS for C^T = op(B)^T op(A)^T:
// B's buffer is passed first, A's second, m and n trade places, and no data moves.
//
// Compute type: CUBLAS_COMPUTE_32F for f16, bf16 and f32. For f16/bf16 this is the mixed
// precision contract (products on tensor cores, sums in f32, one rounding into C). For f32 it
// keeps full f32 products: the TF32 alternative (CUBLAS_COMPUTE_32F_FAST_TF32) rounds the
// inputs to 10 mantissa bits, so "f32" results would silently carry about f16's precision and
// no longer match the CPU reference or teach the f32-vs-f16 comparison honestly. PyTorch also
// leaves TF32 matmuls off by default (torch.backends.cuda.matmul.allow_tf32 = False).
#include "kernels/cuda/gemm_cuda.h"

#include <cublas_v2.h>

#include <climits>
#include <mutex>
#include <vector>

#include "kernels/cuda/cuda_check.h"

namespace tinyamp::kernels::cuda {
namespace {

void check_cublas(cublasStatus_t status, const char* what)
{
    TINYAMP_CHECK(status == CUBLAS_STATUS_SUCCESS, device, what, " failed: ", cublasGetStatusName(status), " (",
                  cublasGetStatusString(status), ")");
}

// One handle per device, made on first use and kept for the life of the process (destroying it
// at exit could run after the CUDA runtime has shut down).
cublasHandle_t handle_for(int device)
{
    static std::mutex mutex;
    static std::vector<cublasHandle_t> handles;
    const std::lock_guard<std::mutex> lock(mutex);
    if (std::size_t(device) >= handles.size()) handles.resize(std::size_t(device) + 1, nullptr);
    cublasHandle_t& h = handles[std::size_t(device)];
    if (!h) {
        check_cublas(cublasCreate(&h), "cublasCreate");
        // The default math mode: no TF32 for f32 (see above); tensor cores for f16/bf16.
        check_cublas(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
    }
    return h;
}

int as_int(std::int64_t v, const char* what)
{
    TINYAMP_CHECK(v >= 0 && v <= INT_MAX, shape, "CUDA gemm: ", what, " = ", v, " does not fit cuBLAS's 32-bit int; split the product");
    return int(v);
}

}  // namespace

void gemm(DType dtype, Transpose trans_a, Transpose trans_b, std::int64_t m, std::int64_t n, std::int64_t k, double alpha, const void* a,
          std::int64_t lda, std::int64_t stride_a, const void* b, std::int64_t ldb, std::int64_t stride_b, double beta, void* c,
          std::int64_t ldc, std::int64_t stride_c, std::int64_t batch, int device)
{
    if (m == 0 || n == 0 || batch == 0) return;
    // cuBLAS wants each leading dimension at least the stored row length (>= 1).
    const std::int64_t a_cols = trans_a == Transpose::yes ? m : k, b_cols = trans_b == Transpose::yes ? k : n;
    TINYAMP_CHECK(lda >= std::max<std::int64_t>(1, a_cols) && ldb >= std::max<std::int64_t>(1, b_cols) && ldc >= std::max<std::int64_t>(1, n),
                  value, "CUDA gemm: leading dimensions lda=", lda, ", ldb=", ldb, ", ldc=", ldc,
                  " are smaller than the rows they hold; pass contiguous matrices");
    detail::use_device(device);
    cublasHandle_t h = handle_for(device);
    const cublasOperation_t op_a = trans_a == Transpose::yes ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t op_b = trans_b == Transpose::yes ? CUBLAS_OP_T : CUBLAS_OP_N;
    cudaDataType_t type = CUDA_R_32F;
    cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
    switch (dtype) {
    case DType::f32: type = CUDA_R_32F; break;
    case DType::f16: type = CUDA_R_16F; break;
    case DType::bf16: type = CUDA_R_16BF; break;
    case DType::f64: type = CUDA_R_64F; compute = CUBLAS_COMPUTE_64F; break;
    default: TINYAMP_FAIL(dtype, "CUDA gemm is defined for f64, f32, f16 and bf16, got ", dtype_name(dtype));
    }
    // The scalars have the compute type's precision: f32 for COMPUTE_32F, f64 for COMPUTE_64F.
    const float alpha_f = float(alpha), beta_f = float(beta);
    const void* alpha_p = compute == CUBLAS_COMPUTE_64F ? static_cast<const void*>(&alpha) : static_cast<const void*>(&alpha_f);
    const void* beta_p = compute == CUBLAS_COMPUTE_64F ? static_cast<const void*>(&beta) : static_cast<const void*>(&beta_f);
    // Swapped: C^T[n, m] = op(B)^T[n, k] * op(A)^T[k, m], all read column-major.
    check_cublas(cublasGemmStridedBatchedEx(h, op_b, op_a, as_int(n, "n"), as_int(m, "m"), as_int(k, "k"), alpha_p, b, type,
                                            as_int(ldb, "ldb"), stride_b, a, type, as_int(lda, "lda"), stride_a, beta_p, c, type,
                                            as_int(ldc, "ldc"), stride_c, as_int(batch, "batch"), compute, CUBLAS_GEMM_DEFAULT),
                 "cublasGemmStridedBatchedEx");
}

}  // namespace tinyamp::kernels::cuda
