// The avx512_bf16 tier (gemm_fast.h), for bf16 inputs only: the 8 x 32 tile of the avx512 tier,
// but fed by vdpbf16ps (_mm512_dpbf16_ps), which multiplies PAIRS of bf16 and adds both products
// to an f32 lane. So the packing keeps bf16 as pairs (k, k + 1) of one row/column in each 32-bit
// slot (half the bytes of widened f32), and the k loop steps over pairs. A row-major op(A) already
// is pairs, and is read where it lies (run_a_in_place) when its rows are close enough together.
//
// What vdpbf16ps does to the numbers (Intel SDM, VDPBF16PS; checked here by gemm_fast_test.cpp):
// a product of two bf16 is exact in f32 (8-bit x 8-bit significands); subnormal bf16 inputs are
// read as zero (DAZ) and subnormal results flushed to zero (FTZ); every addition rounds to
// nearest even whatever MXCSR says; no floating-point exceptions. Per lane the SDM adds the odd
// product first, then the even one. docs/kernels.md explains what that changes in the results.
#include <cstring>

#include "kernels/cpu/gemm_blocked.h"
#include "kernels/cpu/gemm_intrinsics.h"

namespace tinyamp::kernels::cpu::avx512_bf16 {
#if defined(__x86_64__)  // elsewhere gemm_on_tier() never calls a tier
namespace {

struct Kernel {
    using Packed = std::uint32_t;  // a pair of bf16
    static constexpr std::int64_t MR = 8;
    static constexpr std::int64_t NR = 32;
    static constexpr std::int64_t MC = 128;
    static constexpr std::int64_t NC = 256;
    static constexpr std::int64_t KC = 256;  // pairs per block: 512 values of k
    static void run(std::int64_t kc, const std::uint32_t* a, const std::uint32_t* b, float* c, std::int64_t ldc, bool first);
    static void run_a_in_place(std::int64_t kc, const BFloat16* a, std::int64_t lda, const std::uint32_t* b, float* c, std::int64_t ldc,
                               bool first);
};

/// The k loop over pairs, wherever op(A) lies: a_pair(p, i) is pair p of the micro-panel's row i.
template <class APair>
__attribute__((target("avx512f,avx512bf16"), always_inline)) inline void dot_pairs(std::int64_t kc, APair a_pair, const std::uint32_t* b,
                                                                                    Avx512Tile<>& tile)
{
    for (std::int64_t p = 0; p < kc; ++p) {
        const __m512bh b0 = (__m512bh)_mm512_loadu_si512(b), b1 = (__m512bh)_mm512_loadu_si512(b + 16);
#pragma GCC unroll 8
        for (int i = 0; i < Kernel::MR; ++i) {
            const __m512bh a_i = (__m512bh)_mm512_set1_epi32(int(a_pair(p, i)));  // one pair of op(A), in all 16 lanes
            tile.acc[i][0] = _mm512_dpbf16_ps(tile.acc[i][0], a_i, b0);
            tile.acc[i][1] = _mm512_dpbf16_ps(tile.acc[i][1], a_i, b1);
        }
        b += Kernel::NR;
    }
}

__attribute__((target("avx512f,avx512bf16"))) void Kernel::run(std::int64_t kc, const std::uint32_t* a, const std::uint32_t* b, float* c,
                                                                std::int64_t ldc, bool first)
{
    Avx512Tile<> tile;
    tile.load(c, ldc, first);
    const std::uint32_t* a_next = a + kc * MR;  // usually the next call's A micro-panel (see gemm_avx512_kernel.h)
    dot_pairs(
        kc,
        [&](std::int64_t p, int i) {
            // Once per step (i is a constant after unrolling): the next panel's pairs of this step.
            if (i == 0) _mm_prefetch(reinterpret_cast<const char*>(a_next + p * MR), _MM_HINT_T0);
            return a[p * MR + i];
        },
        b, tile);
    tile.store(c, ldc);
}

// op(A) row-major bf16: pair p of row i is the 32-bit word at a + i * lda + 2p, so the kernel
// broadcasts it from where it lies and op(A) is not packed (oneDNN's brgemm does the same).
__attribute__((target("avx512f,avx512bf16"))) void Kernel::run_a_in_place(std::int64_t kc, const BFloat16* a, std::int64_t lda,
                                                                           const std::uint32_t* b, float* c, std::int64_t ldc, bool first)
{
    Avx512Tile<> tile;
    tile.load(c, ldc, first);
    dot_pairs(
        kc,
        [&](std::int64_t p, int i) {
            std::uint32_t pair;
            std::memcpy(&pair, a + i * lda + 2 * p, sizeof pair);
            return pair;
        },
        b, tile);
    tile.store(c, ldc);
}

}  // namespace

template <class Out>
void gemm_avx512_bf16(const GemmProblem<BFloat16, Out>& problem, int threads)
{
    blocked::gemm_blocked<Kernel>(problem, threads);
}

template void gemm_avx512_bf16<BFloat16>(const GemmProblem<BFloat16, BFloat16>&, int);
template void gemm_avx512_bf16<float>(const GemmProblem<BFloat16, float>&, int);

#endif

}  // namespace tinyamp::kernels::cpu::avx512_bf16
