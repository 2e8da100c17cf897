#pragma once
// <immintrin.h> for the GEMM tiers, on x86-64 only. The tiers' functions enable the instructions
// they use with target attributes; nothing here turns any on.
#if defined(__x86_64__)
// GCC 12 reports "'__Y' may be used uninitialized" inside its own AVX-512 intrinsics (GCC bug
// 105593, fixed in GCC 13). Silenced for the files that include this header.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ == 12
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include <cstdint>
#endif

#if defined(__x86_64__)
namespace tinyamp::kernels::cpu {

/// The Rows x 32 f32 accumulator tile of both AVX-512 tiers (8 rows: 16 zmm registers): each row
/// is two zmm registers. Loading starts it at zero (the first k block) or at the partial sums in c
/// (row stride ldc).
template <int Rows = 8>
struct Avx512Tile {
    __m512 acc[Rows][2];

    __attribute__((target("avx512f"), always_inline)) inline void load(const float* c, std::int64_t ldc, bool first)
    {
#pragma GCC unroll 16
        for (int i = 0; i < Rows; ++i) {
            acc[i][0] = first ? _mm512_setzero_ps() : _mm512_loadu_ps(c + i * ldc);
            acc[i][1] = first ? _mm512_setzero_ps() : _mm512_loadu_ps(c + i * ldc + 16);
        }
    }
    __attribute__((target("avx512f"), always_inline)) inline void store(float* c, std::int64_t ldc) const
    {
#pragma GCC unroll 16
        for (int i = 0; i < Rows; ++i) {
            _mm512_storeu_ps(c + i * ldc, acc[i][0]);
            _mm512_storeu_ps(c + i * ldc + 16, acc[i][1]);
        }
    }
};

}  // namespace tinyamp::kernels::cpu
#endif
