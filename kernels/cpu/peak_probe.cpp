// The instruction peaks of peak_probe.h: one loop per instruction, each keeping enough
// independent accumulators in registers that the core never waits for a result (an FMA's latency
// is about 4 cycles and a core starts two a cycle, so at least 8 must be in flight).
#include "kernels/cpu/peak_probe.h"

#include <algorithm>
#include <chrono>
#include <type_traits>

#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/gemm_amx_tiles.h"
#include "kernels/cpu/gemm_intrinsics.h"

namespace tinyamp::kernels::cpu {
namespace {

// GFLOP/s of `loop(iterations)`, each iteration `multiply_adds` multiply-adds: the iteration count
// doubles until one run lasts a millisecond, then the best of 5 runs of that count.
template <class Loop>
double best_gflops(Loop loop, double multiply_adds)
{
    using clock = std::chrono::steady_clock;
    auto seconds_of = [&](std::int64_t iterations) {
        const auto start = clock::now();
        loop(iterations);
        return std::chrono::duration<double>(clock::now() - start).count();
    };
    std::int64_t iterations = 1024;
    while (seconds_of(iterations) < 1e-3 && iterations < (std::int64_t(1) << 40)) iterations *= 2;
    double best = 0.0;
    for (int run = 0; run < 5; ++run) best = std::max(best, 2.0 * multiply_adds * double(iterations) / seconds_of(iterations) / 1e9);
    return best;
}

#if defined(__x86_64__)
volatile float sink;  // the loops' results go here, so the compiler cannot drop them

// acc = acc * 0.999 + 0.001 tends to 1: no overflow, no subnormals, whatever the count.
__attribute__((target("avx2,fma"), noinline)) void fma256_loop(std::int64_t iterations)
{
    __m256 acc[12];
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i) acc[i] = _mm256_set1_ps(float(i));
    const __m256 scale = _mm256_set1_ps(0.999f), shift = _mm256_set1_ps(0.001f);
    for (std::int64_t it = 0; it < iterations; ++it) {
#pragma GCC unroll 12
        for (int i = 0; i < 12; ++i) acc[i] = _mm256_fmadd_ps(acc[i], scale, shift);
    }
#pragma GCC unroll 12
    for (int i = 1; i < 12; ++i) acc[0] = _mm256_add_ps(acc[0], acc[i]);
    sink = _mm256_cvtss_f32(acc[0]);
}

__attribute__((target("avx512f,fma"), noinline)) void fma512_loop(std::int64_t iterations)
{
    __m512 acc[16];
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i) acc[i] = _mm512_set1_ps(float(i));
    const __m512 scale = _mm512_set1_ps(0.999f), shift = _mm512_set1_ps(0.001f);
    for (std::int64_t it = 0; it < iterations; ++it) {
#pragma GCC unroll 16
        for (int i = 0; i < 16; ++i) acc[i] = _mm512_fmadd_ps(acc[i], scale, shift);
    }
#pragma GCC unroll 16
    for (int i = 1; i < 16; ++i) acc[0] = _mm512_add_ps(acc[0], acc[i]);
    sink = _mm512_cvtss_f32(acc[0]);  // one lane is enough to keep them all live
}

// Pairs of bf16 1.0 (0x3F80) times pairs of 2^-20 (0x3580): each step adds 2^-19 to a lane.
__attribute__((target("avx512f,avx512bf16"), noinline)) void dpbf16_loop(std::int64_t iterations)
{
    __m512 acc[16];
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i) acc[i] = _mm512_set1_ps(float(i));
    const __m512bh ones = (__m512bh)_mm512_set1_epi32(0x3F803F80), small = (__m512bh)_mm512_set1_epi32(0x35803580);
    for (std::int64_t it = 0; it < iterations; ++it) {
#pragma GCC unroll 16
        for (int i = 0; i < 16; ++i) acc[i] = _mm512_dpbf16_ps(acc[i], ones, small);
    }
#pragma GCC unroll 16
    for (int i = 1; i < 16; ++i) acc[0] = _mm512_add_ps(acc[0], acc[i]);
    sink = _mm512_cvtss_f32(acc[0]);  // one lane is enough to keep them all live
}

// Four C tiles fed by two A and two B tiles, as the amx tier's kernel: 4 x 8192 multiply-adds.
// A holds bf16 1.0, B 2^-20: each instruction adds 2^-15 to an element of C.
void tdpbf16_loop(std::int64_t iterations)
{
    using Tiles = amx::HardwareTiles;
    amx::TileConfig config;
    for (int t = 0; t < 8; ++t) {
        config.rows[t] = 16;
        config.bytes_per_row[t] = 64;
    }
    alignas(64) std::uint16_t ones[16 * 32], small[16 * 32];
    std::fill(ones, ones + 16 * 32, std::uint16_t(0x3F80));
    std::fill(small, small + 16 * 32, std::uint16_t(0x3580));
    alignas(64) float c[16 * 16];
    Tiles::configure(config);  // also zeroes C
    Tiles::load<4>(ones, 64);
    Tiles::load<5>(ones, 64);
    Tiles::load<6>(small, 64);
    Tiles::load<7>(small, 64);
    for (std::int64_t it = 0; it < iterations; ++it) {
        Tiles::dpbf16ps<0, 4, 6>();
        Tiles::dpbf16ps<1, 4, 7>();
        Tiles::dpbf16ps<2, 5, 6>();
        Tiles::dpbf16ps<3, 5, 7>();
    }
    Tiles::store<0>(c, 64);
    Tiles::release();
    sink = c[0];
}
#endif

}  // namespace

template <class In>
double instruction_peak_gflops(GemmTier tier)
{
#if defined(__x86_64__)
    const CpuFeatures f = detect_cpu_features();
    const bool avx512 = f.avx512f && f.fma;
    constexpr bool bf16 = std::is_same_v<In, BFloat16>;
    switch (tier) {
        case GemmTier::portable: return 0.0;
        case GemmTier::avx2: return f.avx2 && f.fma ? best_gflops(fma256_loop, 12.0 * 8) : 0.0;
        case GemmTier::avx512: return avx512 ? best_gflops(fma512_loop, 16.0 * 16) : 0.0;
        case GemmTier::avx512_bf16:
            if (!bf16) return avx512 ? best_gflops(fma512_loop, 16.0 * 16) : 0.0;  // f32 and f16 run the avx512 kernel there
            return avx512 && f.avx512bf16 ? best_gflops(dpbf16_loop, 16.0 * 16 * 2) : 0.0;
        case GemmTier::amx:
            if (!bf16) return avx512 ? best_gflops(fma512_loop, 16.0 * 16) : 0.0;
            return f.amx_bf16 ? best_gflops(tdpbf16_loop, 4.0 * 16 * 16 * 32) : 0.0;
    }
#else
    (void)tier;
#endif
    return 0.0;
}

template double instruction_peak_gflops<float>(GemmTier);
template double instruction_peak_gflops<Half>(GemmTier);
template double instruction_peak_gflops<BFloat16>(GemmTier);

}  // namespace tinyamp::kernels::cpu
