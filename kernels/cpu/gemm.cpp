// The reference GEMM, and the dispatcher that picks a tier for each call (gemm.h).
#include "kernels/cpu/gemm.h"

#include <algorithm>
#include <thread>
#include <type_traits>
#include <vector>

#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/elementwise_loops.h"
#include "kernels/cpu/gemm_fast.h"
#include "tinyamp/support/parallel.h"

namespace tinyamp::kernels::cpu {

const char* gemm_tier_name(GemmTier tier)
{
    switch (tier) {
        case GemmTier::portable: return "portable";
        case GemmTier::avx2: return "avx2";
        case GemmTier::avx512: return "avx512";
        case GemmTier::avx512_bf16: return "avx512_bf16";
        case GemmTier::amx: return "amx";
    }
    return "?";
}

template <class In, class Out>
void gemm_reference(Transpose trans_a, Transpose trans_b, std::int64_t m, std::int64_t n, std::int64_t k, double alpha, const In* a,
                    std::int64_t lda, const In* b, std::int64_t ldb, double beta, Out* c, std::int64_t ldc, GemmBias<Out> bias)
{
    using Acc = compute_t<In>;
    if (m == 0 || n == 0) return;  // nothing to write (and C may be a null pointer)
    // Element (row, col) of op(A) and op(B), wherever the buffer keeps it.
    auto a_at = [&](std::int64_t row, std::int64_t col) {
        return load(trans_a == Transpose::yes ? a[col * lda + row] : a[row * lda + col]);
    };
    auto b_at = [&](std::int64_t row, std::int64_t col) {
        return load(trans_b == Transpose::yes ? b[col * ldb + row] : b[row * ldb + col]);
    };
    auto bias_at = [&](std::int64_t i, std::int64_t j) { return Acc(load(bias.data[bias.along == BiasAlong::rows ? j : i])); };

    // i-k-j order: row i of C is built as a sum of rows of op(B), each scaled by one element of
    // op(A). The innermost loop walks along a row of B and of the accumulator.
    std::vector<Acc> row(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < m; ++i) {
        std::fill(row.begin(), row.end(), Acc(0));
        for (std::int64_t p = 0; p < k; ++p) {
            const Acc a_ip = a_at(i, p);
            for (std::int64_t j = 0; j < n; ++j) row[std::size_t(j)] += a_ip * b_at(p, j);
        }
        // The epilogue, in the accumulator's type, then one rounding into C.
        Out* c_row = c + i * ldc;
        for (std::int64_t j = 0; j < n; ++j) {
            Acc value = Acc(alpha) * row[std::size_t(j)];
            if (beta != 0.0) value += Acc(beta) * Acc(load(c_row[j]));
            if (bias.data) value += bias_at(i, j);
            c_row[j] = store<Out>(value);
        }
    }
}

template <class In, class Out>
void gemm_small(Transpose trans_a, Transpose trans_b, std::int64_t m, std::int64_t n, std::int64_t k, double alpha, const In* a,
                std::int64_t lda, const In* b, std::int64_t ldb, double beta, Out* c, std::int64_t ldc, GemmBias<Out> bias)
{
    if (!fits_gemm_small(n, k)) return gemm_reference<In, Out>(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, bias);
    using Acc = compute_t<In>;
    if (m == 0 || n == 0) return;
    // op(B), converted once (the reference converts it again for every row of C), row-major with
    // rows of n: the inner loop below then reads it with step 1, which the compiler vectorizes.
    Acc panel[kGemmSmallMaxElements];
    for (std::int64_t p = 0; p < k; ++p)
        for (std::int64_t j = 0; j < n; ++j) panel[p * n + j] = load(trans_b == Transpose::yes ? b[j * ldb + p] : b[p * ldb + j]);

    // From here on the reference's loops: the same operations in the same order.
    Acc row[kGemmSmallMaxElements];
    for (std::int64_t i = 0; i < m; ++i) {
        std::fill(row, row + n, Acc(0));
        for (std::int64_t p = 0; p < k; ++p) {
            const Acc a_ip = load(trans_a == Transpose::yes ? a[p * lda + i] : a[i * lda + p]);
            const Acc* b_row = panel + p * n;
            // Runs of 8 with a fixed trip count compile to a few vector instructions; a loop of
            // unknown length pays its checks and tail handling on every (i, p).
            std::int64_t j = 0;
            for (; j + 8 <= n; j += 8)
                for (std::int64_t u = 0; u < 8; ++u) row[j + u] += a_ip * b_row[j + u];
            for (; j < n; ++j) row[j] += a_ip * b_row[j];
        }
        Out* c_row = c + i * ldc;
        for (std::int64_t j = 0; j < n; ++j) {
            Acc value = Acc(alpha) * row[j];
            if (beta != 0.0) value += Acc(beta) * Acc(load(c_row[j]));
            if (bias.data) value += Acc(load(bias.data[bias.along == BiasAlong::rows ? j : i]));
            c_row[j] = store<Out>(value);
        }
    }
}

// Below this many multiply-adds (m * n * k) the fast kernels' fixed costs (allocating and
// packing, about 0.1 us) are not repaid everywhere. Measured on the 2-core AMD EPYC (avx512
// tier, commit b0ab1ae): at 16^3 the fast path is 2x (f32) to 12x (f16/bf16) faster; only f32
// products with one or two rows (a matrix-vector shape) are still up to 2x slower there, a
// fraction of a microsecond. Smaller products stay on the reference.
constexpr std::int64_t kFastGemmMinWork = 4096;

template <class In>
GemmTier best_gemm_tier(const CpuFeatures& f)
{
    if constexpr (std::is_same_v<In, double>) {
        return GemmTier::portable;  // no fast f64 kernel
    } else {
        // AMX needs no AVX-512 of its own, but every CPU with it has AVX-512, which its packing
        // and the f32/f16 products use; the check keeps a hand-made feature set honest.
        if (std::is_same_v<In, BFloat16> && f.amx_bf16 && f.avx512f && f.fma) return GemmTier::amx;
        if (std::is_same_v<In, BFloat16> && f.avx512f && f.avx512bf16 && f.fma) return GemmTier::avx512_bf16;
        if (f.avx512f && f.fma) return GemmTier::avx512;
        if (f.avx2 && f.fma) return GemmTier::avx2;
        return GemmTier::portable;
    }
}

template <class In>
GemmTier gemm_tier(std::int64_t m, std::int64_t n, std::int64_t k, const CpuFeatures& features)
{
    return m * n * k >= kFastGemmMinWork ? best_gemm_tier<In>(features) : GemmTier::portable;
}

// One thread per this many multiply-adds at least. The helpers stay alive and spin between
// products (worker_pool.h), so a hand-over costs no thread start; what remains is the helper
// reading operands that sit in the caller's cache. On the 2-core AMD EPYC (avx512 tier, f32):
// 64x256x256 took 52 us on one thread and 30 on two, 64x256x64 13 and 9.5, but 64x128x64
// (2^19) 8.4 and 12.7, and 64x64x64 4.1 and 9.2. So products from 2^20 multiply-adds split.
constexpr std::int64_t kWorkPerThread = std::int64_t(1) << 19;

int gemm_thread_count(std::int64_t m, std::int64_t n, std::int64_t k)
{
    // Asked once: glibc answers hardware_concurrency by reading /sys, about 12 us a call.
    static const std::int64_t cores = std::max(1u, std::thread::hardware_concurrency());
    const std::int64_t useful = std::max<std::int64_t>(1, m * n * k / kWorkPerThread);
    return int(std::min({std::int64_t(get_num_threads()), useful, cores}));
}

template <class In, class Out>
void gemm_on_tier(GemmTier tier, int threads, Transpose trans_a, Transpose trans_b, std::int64_t m, std::int64_t n, std::int64_t k,
                  double alpha, const In* a, std::int64_t lda, const In* b, std::int64_t ldb, double beta, Out* c, std::int64_t ldc,
                  GemmBias<Out> bias)
{
    if constexpr (std::is_same_v<In, double>) {
        (void)tier, (void)threads;  // only the reference takes f64
    } else {
        const GemmProblem<In, Out> problem{trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, bias};
        if (threads == 0) threads = gemm_thread_count(m, n, k);
#if defined(__x86_64__)  // the only CPUs the fast tiers are built for
        if constexpr (std::is_same_v<In, BFloat16>) {
            if (tier == GemmTier::amx) return amx::gemm_amx<Out>(problem, threads);
            if (tier == GemmTier::avx512_bf16) return avx512_bf16::gemm_avx512_bf16<Out>(problem, threads);
        }
        if (tier == GemmTier::avx512 || tier == GemmTier::avx512_bf16 || tier == GemmTier::amx) return avx512::gemm_avx512<In, Out>(problem, threads);
        if (tier == GemmTier::avx2) return avx2::gemm_avx2<In, Out>(problem, threads);
#else
        (void)problem;
#endif
    }
    gemm_small<In, Out>(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, bias);  // the reference when it does not fit
}

template <class In, class Out>
void gemm(Transpose trans_a, Transpose trans_b, std::int64_t m, std::int64_t n, std::int64_t k, double alpha, const In* a, std::int64_t lda,
          const In* b, std::int64_t ldb, double beta, Out* c, std::int64_t ldc, GemmBias<Out> bias)
{
    gemm_on_tier<In, Out>(gemm_tier<In>(m, n, k, cpu_features()), 0, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, bias);
}

#define TINYAMP_INSTANTIATE_GEMM(In, Out)                                                                                          \
    template void gemm<In, Out>(Transpose, Transpose, std::int64_t, std::int64_t, std::int64_t, double, const In*, std::int64_t,     \
                                const In*, std::int64_t, double, Out*, std::int64_t, GemmBias<Out>);                               \
    template void gemm_reference<In, Out>(Transpose, Transpose, std::int64_t, std::int64_t, std::int64_t, double, const In*,        \
                                          std::int64_t, const In*, std::int64_t, double, Out*, std::int64_t, GemmBias<Out>);       \
    template void gemm_small<In, Out>(Transpose, Transpose, std::int64_t, std::int64_t, std::int64_t, double, const In*,            \
                                      std::int64_t, const In*, std::int64_t, double, Out*, std::int64_t, GemmBias<Out>);           \
    template void gemm_on_tier<In, Out>(GemmTier, int, Transpose, Transpose, std::int64_t, std::int64_t, std::int64_t, double,      \
                                        const In*, std::int64_t, const In*, std::int64_t, double, Out*, std::int64_t, GemmBias<Out>);
TINYAMP_INSTANTIATE_GEMM(float, float)
TINYAMP_INSTANTIATE_GEMM(double, double)
TINYAMP_INSTANTIATE_GEMM(Half, Half)
TINYAMP_INSTANTIATE_GEMM(BFloat16, BFloat16)
TINYAMP_INSTANTIATE_GEMM(Half, float)
TINYAMP_INSTANTIATE_GEMM(BFloat16, float)
#undef TINYAMP_INSTANTIATE_GEMM
#define TINYAMP_INSTANTIATE_TIER_CHOICE(In)                                                       \
    template GemmTier best_gemm_tier<In>(const CpuFeatures&);                                     \
    template GemmTier gemm_tier<In>(std::int64_t, std::int64_t, std::int64_t, const CpuFeatures&);
TINYAMP_INSTANTIATE_TIER_CHOICE(float)
TINYAMP_INSTANTIATE_TIER_CHOICE(double)
TINYAMP_INSTANTIATE_TIER_CHOICE(Half)
TINYAMP_INSTANTIATE_TIER_CHOICE(BFloat16)
#undef TINYAMP_INSTANTIATE_TIER_CHOICE

}  // namespace tinyamp::kernels::cpu
