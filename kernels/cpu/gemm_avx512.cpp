// The avx512 tier (gemm_fast.h): the blocked GEMM of gemm_blocked.h around an 8 x 32 micro-kernel
// of f32 FMAs in 512-bit registers. f16 and bf16 inputs arrive here already widened to f32 by the
// packing, so one kernel serves all three dtypes.
#include "kernels/cpu/gemm_blocked.h"

#include "kernels/cpu/gemm_intrinsics.h"

namespace tinyamp::kernels::cpu::avx512 {
#if defined(__x86_64__)  // elsewhere gemm_on_tier() never calls a tier
namespace {

struct Kernel {
    using Packed = float;
    static constexpr std::int64_t MR = 8;    // rows of the register tile
    static constexpr std::int64_t NR = 32;   // columns: two zmm of 16 f32
    static constexpr std::int64_t MC = 128;  // rows of a packed block of A (A block: 128 x 256 x 4 B = 128 KiB, in L2)
    static constexpr std::int64_t NC = 256;  // columns of a packed block of B
    static constexpr std::int64_t KC = 256;  // k steps per block (one B micro-panel: 256 x 32 x 4 B = 32 KiB, in L1)
    static void run(std::int64_t kc, const float* a, const float* b, float* c, std::int64_t ldc, bool first);
};

// 16 accumulators (8 rows x two 16-lane vectors). Each step p loads 32 values of a row of op(B),
// broadcasts 8 values of a column of op(A) and does 16 FMAs: 512 multiply-adds for 10 loads.
__attribute__((target("avx512f,fma"))) void Kernel::run(std::int64_t kc, const float* a, const float* b, float* c, std::int64_t ldc,
                                                        bool first)
{
    Avx512Tile tile;
    tile.load(c, ldc, first);
    const float* a_next = a + kc * MR;  // usually the next call's A micro-panel
    for (std::int64_t p = 0; p < kc; ++p) {
        // Pull the next A micro-panel into L1 while this one is used: the first pass over a block
        // reads A from L3, and the hardware prefetcher alone left the kernel waiting (about 12%
        // of a 2048^3 product). A prefetch past the buffer's end is harmless: it never faults.
        _mm_prefetch(reinterpret_cast<const char*>(a_next + p * MR), _MM_HINT_T0);
        const __m512 b0 = _mm512_loadu_ps(b), b1 = _mm512_loadu_ps(b + 16);
#pragma GCC unroll 8
        for (int i = 0; i < MR; ++i) {
            const __m512 a_i = _mm512_set1_ps(a[i]);  // one element of op(A), in all 16 lanes
            tile.acc[i][0] = _mm512_fmadd_ps(a_i, b0, tile.acc[i][0]);
            tile.acc[i][1] = _mm512_fmadd_ps(a_i, b1, tile.acc[i][1]);
        }
        a += MR;
        b += NR;
    }
    tile.store(c, ldc);
}

}  // namespace

TINYAMP_DEFINE_WIDENING_GEMM_TIER(Kernel)

#endif

}  // namespace tinyamp::kernels::cpu::avx512
