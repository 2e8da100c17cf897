#include "kernels/cpu/gemm.h"

#include <algorithm>
#include <type_traits>
#include <vector>

#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/gemm_fast.h"

namespace tinyamp::kernels::cpu {

template <class T>
void gemm_reference(Transpose trans_a, Transpose trans_b, std::int64_t m, std::int64_t n, std::int64_t k, double alpha, const T* a,
                    std::int64_t lda, const T* b, std::int64_t ldb, double beta, T* c, std::int64_t ldc)
{
    using Acc = compute_t<T>;
    if (m == 0 || n == 0) return;  // nothing to write (and C may be a null pointer)
    // Element (row, col) of op(A) and op(B), wherever the buffer keeps it.
    auto a_at = [&](std::int64_t row, std::int64_t col) {
        return load(trans_a == Transpose::yes ? a[col * lda + row] : a[row * lda + col]);
    };
    auto b_at = [&](std::int64_t row, std::int64_t col) {
        return load(trans_b == Transpose::yes ? b[col * ldb + row] : b[row * ldb + col]);
    };

    // i-k-j order: row i of C is built as a sum of rows of op(B), each scaled by one element of
    // op(A). The innermost loop walks along a row of B and of the accumulator.
    std::vector<Acc> row(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < m; ++i) {
        std::fill(row.begin(), row.end(), Acc(0));
        for (std::int64_t p = 0; p < k; ++p) {
            const Acc a_ip = a_at(i, p);
            for (std::int64_t j = 0; j < n; ++j) row[std::size_t(j)] += a_ip * b_at(p, j);
        }
        T* c_row = c + i * ldc;
        for (std::int64_t j = 0; j < n; ++j) {
            Acc value = Acc(alpha) * row[std::size_t(j)];
            if (beta != 0.0) value += Acc(beta) * load(c_row[j]);
            c_row[j] = store<T>(value);
        }
    }
}

// Below this many multiply-adds (m * n * k) the fast kernel's fixed costs (allocating and packing,
// about 0.1 us) are not repaid everywhere. Measured on Zen 4: at 16^3 the fast path is 2x (f32)
// to 12x (f16/bf16) faster; only f32 products with one or two rows (a matrix-vector shape) are
// still up to 2x slower there, a fraction of a microsecond. Smaller products stay on the reference.
constexpr std::int64_t kFastGemmMinWork = 4096;

template <class T>
bool gemm_uses_fast_path(std::int64_t m, std::int64_t n, std::int64_t k, const CpuFeatures& features)
{
    if constexpr (std::is_same_v<T, double>) {
        return false;  // no fast f64 kernel
    } else {
        return m * n * k >= kFastGemmMinWork && avx512::gemm_supported<T>(features);
    }
}

template <class T>
void gemm(Transpose trans_a, Transpose trans_b, std::int64_t m, std::int64_t n, std::int64_t k, double alpha, const T* a, std::int64_t lda,
          const T* b, std::int64_t ldb, double beta, T* c, std::int64_t ldc)
{
    if constexpr (!std::is_same_v<T, double>) {
        if (gemm_uses_fast_path<T>(m, n, k, cpu_features())) {
            avx512::gemm<T>(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
            return;
        }
    }
    gemm_reference<T>(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

#define TINYAMP_INSTANTIATE_GEMM(T)                                                                                                 \
    template void gemm<T>(Transpose, Transpose, std::int64_t, std::int64_t, std::int64_t, double, const T*, std::int64_t, const T*, \
                          std::int64_t, double, T*, std::int64_t);                                                                  \
    template void gemm_reference<T>(Transpose, Transpose, std::int64_t, std::int64_t, std::int64_t, double, const T*, std::int64_t,     \
                                    const T*, std::int64_t, double, T*, std::int64_t);                                              \
    template bool gemm_uses_fast_path<T>(std::int64_t, std::int64_t, std::int64_t, const CpuFeatures&);
TINYAMP_INSTANTIATE_GEMM(float)
TINYAMP_INSTANTIATE_GEMM(double)
TINYAMP_INSTANTIATE_GEMM(Half)
TINYAMP_INSTANTIATE_GEMM(BFloat16)
#undef TINYAMP_INSTANTIATE_GEMM

}  // namespace tinyamp::kernels::cpu
