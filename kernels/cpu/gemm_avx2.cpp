// The avx2 tier (gemm_fast.h): the blocked GEMM of gemm_blocked.h around a 6 x 16 micro-kernel of
// f32 FMAs in 256-bit registers, for CPUs without AVX-512. x86-64 has 16 ymm registers: 12 hold
// the tile (6 rows x two 8-lane vectors), 2 a row of op(B), 1 the broadcast element of op(A).
// f16 arrives widened by F16C and bf16 by a 16-bit shift, both in the packing.
#include "kernels/cpu/gemm_blocked.h"
#include "kernels/cpu/gemm_intrinsics.h"

namespace tinyamp::kernels::cpu::avx2 {
#if defined(__x86_64__)  // elsewhere gemm_on_tier() never calls a tier
namespace {

struct Kernel {
    using Packed = float;
    static constexpr std::int64_t MR = 6;
    static constexpr std::int64_t NR = 16;
    static constexpr std::int64_t MC = 120;  // a multiple of MR
    static constexpr std::int64_t NC = 256;
    static constexpr std::int64_t KC = 256;  // one B micro-panel: 256 x 16 x 4 B = 16 KiB, in L1
    static void run(std::int64_t kc, const float* a, const float* b, float* c, std::int64_t ldc, bool first);
};

__attribute__((target("avx2,fma"))) void Kernel::run(std::int64_t kc, const float* a, const float* b, float* c, std::int64_t ldc,
                                                     bool first)
{
    __m256 acc[MR][2];  // fully unrolled loops let GCC keep all 12 in registers (else it spills them)
#pragma GCC unroll 6
    for (int i = 0; i < MR; ++i) {
        acc[i][0] = first ? _mm256_setzero_ps() : _mm256_loadu_ps(c + i * ldc);
        acc[i][1] = first ? _mm256_setzero_ps() : _mm256_loadu_ps(c + i * ldc + 8);
    }
    for (std::int64_t p = 0; p < kc; ++p) {
        const __m256 b0 = _mm256_loadu_ps(b), b1 = _mm256_loadu_ps(b + 8);
#pragma GCC unroll 6
        for (int i = 0; i < MR; ++i) {
            const __m256 a_i = _mm256_broadcast_ss(a + i);  // one element of op(A), in all 8 lanes
            acc[i][0] = _mm256_fmadd_ps(a_i, b0, acc[i][0]);
            acc[i][1] = _mm256_fmadd_ps(a_i, b1, acc[i][1]);
        }
        a += MR;
        b += NR;
    }
#pragma GCC unroll 6
    for (int i = 0; i < MR; ++i) {
        _mm256_storeu_ps(c + i * ldc, acc[i][0]);
        _mm256_storeu_ps(c + i * ldc + 8, acc[i][1]);
    }
}

}  // namespace

TINYAMP_DEFINE_WIDENING_GEMM_TIER(gemm_avx2, Kernel)

#endif

}  // namespace tinyamp::kernels::cpu::avx2
