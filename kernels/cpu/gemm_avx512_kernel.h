#pragma once
// The avx512 tier's micro-kernel (gemm_avx512.cpp): an MR x 32 tile of f32 multiply-adds in
// 512-bit registers, for the blocked GEMM of gemm_blocked.h. A template over its register tile,
// cache blocking, loop order and prefetch, so that tinyamp-f32-tuning (bench/f32_tuning.cpp) can
// time other choices against the tier's own (Kernel<>), with the same code.
#include <cstdint>

#include "kernels/cpu/gemm_intrinsics.h"

namespace tinyamp::kernels::cpu::avx512 {
#if defined(__x86_64__)

/// What the kernel pulls into L1 ahead of use while it works on one tile.
enum class Prefetch {
    none,
    next_a,  ///< the next A micro-panel: the first pass over a block reads A from L3, and the
             ///< hardware prefetcher alone left the kernel waiting (about 12% of a 2048^3
             ///< product on a Zen 4)
    next_b,  ///< the next B micro-panel (for rows_outer, where B's panels are the ones that stream)
    next_a_per_line,  ///< next_a every second step: for MR = 8 one prefetch per cache line, not two
    next_a_b_to_l2,   ///< next_a_per_line, and every second step one line of the next B micro-panel
                      ///< into L2 (one line in four; the L2's adjacent-line prefetch adds a second),
                      ///< so that its first use need not wait for L3 (within the noise on an
                      ///< Emerald Rapids Xeon: docs/benchmarks.md)
};

/// MR rows (MR <= 14: 2 * MR accumulators, 2 registers of B and one broadcast must fit in 32);
/// MC a multiple of MR; NC of 32. The tier's choice (the defaults) was measured on a Zen 4 and
/// checked against other choices on a Xeon (docs/kernels.md, "The f32 tier on a Xeon").
template <std::int64_t MR_ = 8, std::int64_t MC_ = 128, std::int64_t NC_ = 256, std::int64_t KC_ = 256, bool RowsOuter = false,
          Prefetch Ahead = Prefetch::next_a>
struct Kernel {
    using Packed = float;
    static constexpr std::int64_t MR = MR_;  // rows of the register tile
    static constexpr std::int64_t NR = 32;   // columns: two zmm of 16 f32
    static constexpr std::int64_t MC = MC_;  // rows of a packed block of A (128 x 256 x 4 B = 128 KiB, in L2)
    static constexpr std::int64_t NC = NC_;  // columns of a packed block of B
    static constexpr std::int64_t KC = KC_;  // k steps per block (one B micro-panel: 256 x 32 x 4 B = 32 KiB, in L1)
    static constexpr bool rows_outer = RowsOuter;
    static_assert(MR >= 1 && MR <= 14 && MC % MR == 0 && NC % NR == 0);

    /// One step p of the k loop: tile += column p of the A micro-panel x row p of the B micro-panel.
    __attribute__((target("avx512f,fma"), always_inline)) static inline void step(Avx512Tile<int(MR)>& tile, const float*& a,
                                                                                  const float*& b)
    {
        const __m512 b0 = _mm512_loadu_ps(b), b1 = _mm512_loadu_ps(b + 16);
#pragma GCC unroll 16
        for (int i = 0; i < MR; ++i) {
            const __m512 a_i = _mm512_set1_ps(a[i]);  // one element of op(A), in all 16 lanes
            tile.acc[i][0] = _mm512_fmadd_ps(a_i, b0, tile.acc[i][0]);
            tile.acc[i][1] = _mm512_fmadd_ps(a_i, b1, tile.acc[i][1]);
        }
        a += MR;
        b += NR;
    }

    // 2 * MR accumulators. Each step p loads 32 values of a row of op(B), broadcasts MR values of
    // a column of op(A) and does 2 * MR FMAs: for MR = 8, 512 multiply-adds for 10 loads.
    __attribute__((target("avx512f,fma"))) static void run(std::int64_t kc, const float* a, const float* b, float* c, std::int64_t ldc,
                                                           bool first)
    {
        Avx512Tile<int(MR)> tile;
        tile.load(c, ldc, first);
        const float* a_next = a + kc * MR;  // usually the next call's A micro-panel
        const float* b_next = b + kc * NR;  // usually the next call's B micro-panel
        // A prefetch past the buffer's end is harmless: it never faults.
        if constexpr (Ahead == Prefetch::next_a_per_line || Ahead == Prefetch::next_a_b_to_l2) {
            std::int64_t p = 0;
            for (; p + 2 <= kc; p += 2) {
                _mm_prefetch(reinterpret_cast<const char*>(a_next + p * MR), _MM_HINT_T0);
                if constexpr (Ahead == Prefetch::next_a_b_to_l2) _mm_prefetch(reinterpret_cast<const char*>(b_next + p * NR), _MM_HINT_T1);
                step(tile, a, b);
                step(tile, a, b);
            }
            if (p < kc) step(tile, a, b);
        } else {
            for (std::int64_t p = 0; p < kc; ++p) {
                if constexpr (Ahead == Prefetch::next_a) _mm_prefetch(reinterpret_cast<const char*>(a_next + p * MR), _MM_HINT_T0);
                if constexpr (Ahead == Prefetch::next_b) _mm_prefetch(reinterpret_cast<const char*>(b_next + p * NR), _MM_HINT_T0);
                step(tile, a, b);
            }
        }
        tile.store(c, ldc);
    }

    /// run() reading op(A) where it lies (gemm_blocked.h decides when): row i of the micro-panel
    /// starts at a + i * lda, at the k block's first value. The same multiply-adds in the same
    /// order as run() over the packed panel, so the same bits; no packing pass over op(A).
    __attribute__((target("avx512f,fma"))) static void run_a_in_place(std::int64_t kc, const float* a, std::int64_t lda, const float* b,
                                                                      float* c, std::int64_t ldc, bool first)
    {
        Avx512Tile<int(MR)> tile;
        tile.load(c, ldc, first);
        for (std::int64_t p = 0; p < kc; ++p) {
            const __m512 b0 = _mm512_loadu_ps(b), b1 = _mm512_loadu_ps(b + 16);
#pragma GCC unroll 16
            for (int i = 0; i < MR; ++i) {
                const __m512 a_i = _mm512_set1_ps(a[i * lda + p]);
                tile.acc[i][0] = _mm512_fmadd_ps(a_i, b0, tile.acc[i][0]);
                tile.acc[i][1] = _mm512_fmadd_ps(a_i, b1, tile.acc[i][1]);
            }
            b += NR;
        }
        tile.store(c, ldc);
    }
};

#endif
}  // namespace tinyamp::kernels::cpu::avx512
