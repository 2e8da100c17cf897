// The AVX-512 GEMM described in gemm_fast.h. As in convert_x86.cpp, every function that uses
// vector instructions gets them from a target attribute, not a file-wide -m flag, so nothing else
// in the program can pick up instructions the CPU may lack.
#include "kernels/cpu/gemm_fast.h"

#include <algorithm>
#include <thread>
#include <type_traits>
#include <vector>

#include "kernels/cpu/convert.h"

#if defined(__x86_64__)
// GCC 12 reports "'__Y' may be used uninitialized" inside its own AVX-512 intrinsics (GCC bug
// 105593, fixed in GCC 13). Silenced for this file only.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ == 12
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#endif

namespace tinyamp::kernels::cpu::avx512 {

template <class T>
bool gemm_supported(const CpuFeatures& f)
{
    const bool base = f.avx512f && f.fma;
    if constexpr (std::is_same_v<T, float>) return base;
    if constexpr (std::is_same_v<T, Half>) return base && f.f16c;
    if constexpr (std::is_same_v<T, BFloat16>) return base && f.avx512bf16;
    return false;
}

#if defined(__x86_64__)

#define TINYAMP_GEMM_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,fma,f16c")))
#define TINYAMP_GEMM_BF16_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,fma,f16c,avx512bf16")))

namespace {

// Tile and block sizes (see gemm_fast.h). Sizes along k count "units": one k step for f32/f16,
// one PAIR of k steps for bf16 (so a bf16 block covers 2 * KC values of k).
constexpr std::int64_t MR = 8;    // rows of the register tile
constexpr std::int64_t NR = 32;   // columns of the register tile: two zmm of 16 f32
constexpr std::int64_t MC = 128;  // rows of a packed block of A (multiple of MR)
constexpr std::int64_t NC = 256;  // columns of a packed block of B (multiple of NR)
constexpr std::int64_t KC = 256;  // k units per block

// Below this many multiply-adds (512^3) the second thread costs more than it saves: on the
// 2-core Zen 4 this was written on, 256^3 and 384^3 ran slower on two threads than on one,
// 512^3 1.7x faster.
constexpr std::int64_t kThreadMinWork = std::int64_t(1) << 27;

// f32 and f16 are packed as f32; bf16 as pairs of bf16 bits in one 32-bit slot.
template <class T>
using packed_t = std::conditional_t<std::is_same_v<T, BFloat16>, std::uint32_t, float>;

// ---------------------------------------------------------------------------------------------
// Micro-kernels: c[MR x NR] (row stride ldc) = (first ? 0 : c) + sum over kc units of a x b.

TINYAMP_GEMM_TARGET void micro_kernel_f32(std::int64_t kc, const float* a, const float* b, float* c, std::int64_t ldc, bool first)
{
    __m512 acc[MR][2];
    for (int i = 0; i < MR; ++i) {
        acc[i][0] = first ? _mm512_setzero_ps() : _mm512_loadu_ps(c + i * ldc);
        acc[i][1] = first ? _mm512_setzero_ps() : _mm512_loadu_ps(c + i * ldc + 16);
    }
    for (std::int64_t p = 0; p < kc; ++p) {
        const __m512 b0 = _mm512_loadu_ps(b), b1 = _mm512_loadu_ps(b + 16);
#pragma GCC unroll 8
        for (int i = 0; i < MR; ++i) {
            const __m512 a_i = _mm512_set1_ps(a[i]);  // one element of op(A), in all 16 lanes
            acc[i][0] = _mm512_fmadd_ps(a_i, b0, acc[i][0]);
            acc[i][1] = _mm512_fmadd_ps(a_i, b1, acc[i][1]);
        }
        a += MR;
        b += NR;
    }
    for (int i = 0; i < MR; ++i) {
        _mm512_storeu_ps(c + i * ldc, acc[i][0]);
        _mm512_storeu_ps(c + i * ldc + 16, acc[i][1]);
    }
}

// Same tile for bf16: each 32-bit slot of a and b holds the pair (k, k + 1); vdpbf16ps adds both
// products of a pair to the f32 lane.
TINYAMP_GEMM_BF16_TARGET void micro_kernel_bf16(std::int64_t kc, const std::uint32_t* a, const std::uint32_t* b, float* c, std::int64_t ldc,
                                                bool first)
{
    __m512 acc[MR][2];
    for (int i = 0; i < MR; ++i) {
        acc[i][0] = first ? _mm512_setzero_ps() : _mm512_loadu_ps(c + i * ldc);
        acc[i][1] = first ? _mm512_setzero_ps() : _mm512_loadu_ps(c + i * ldc + 16);
    }
    for (std::int64_t p = 0; p < kc; ++p) {
        const __m512bh b0 = (__m512bh)_mm512_loadu_si512(b), b1 = (__m512bh)_mm512_loadu_si512(b + 16);
#pragma GCC unroll 8
        for (int i = 0; i < MR; ++i) {
            const __m512bh a_i = (__m512bh)_mm512_set1_epi32(int(a[i]));  // one pair of op(A), in all 16 lanes
            acc[i][0] = _mm512_dpbf16_ps(acc[i][0], a_i, b0);
            acc[i][1] = _mm512_dpbf16_ps(acc[i][1], a_i, b1);
        }
        a += MR;
        b += NR;
    }
    for (int i = 0; i < MR; ++i) {
        _mm512_storeu_ps(c + i * ldc, acc[i][0]);
        _mm512_storeu_ps(c + i * ldc + 16, acc[i][1]);
    }
}

// ---------------------------------------------------------------------------------------------
// Packing. A view of op(X): element (row, col) wherever the buffer keeps it.
template <class T>
struct View {
    const T* data;
    std::int64_t ld;
    bool transposed;
    T at(std::int64_t row, std::int64_t col) const { return transposed ? data[col * ld + row] : data[row * ld + col]; }
};

TINYAMP_GEMM_TARGET inline float widen(float x) { return x; }
TINYAMP_GEMM_TARGET inline float widen(Half x) { return _cvtsh_ss(x.bits); }  // vcvtph2ps: exact

// Packs rows [row0, row0 + rows) x k of op(X) into panels of `width` rows (width = MR for A;
// for B pass the transposed view and width = NR, since a column panel of op(B) is a row panel of
// op(B)^T). Panel q holds its unit p at dst[q * units * width + p * width + r]; missing rows are 0.
template <class T>
TINYAMP_GEMM_TARGET void pack_f32(View<T> x, std::int64_t row0, std::int64_t rows, std::int64_t k, std::int64_t width, float* dst)
{
    for (std::int64_t r0 = 0; r0 < rows; r0 += width) {
        const std::int64_t live = std::min(width, rows - r0);
        for (std::int64_t p = 0; p < k; ++p) {
            for (std::int64_t r = 0; r < live; ++r) dst[r] = widen(x.at(row0 + r0 + r, p));
            for (std::int64_t r = live; r < width; ++r) dst[r] = 0.0f;
            dst += width;
        }
    }
}

// bf16: unit p is the pair (2p, 2p + 1), low half first, as vdpbf16ps pairs them; an odd k is
// padded with a zero.
void pack_bf16(View<BFloat16> x, std::int64_t row0, std::int64_t rows, std::int64_t k, std::int64_t width, std::uint32_t* dst)
{
    const std::int64_t units = (k + 1) / 2;
    for (std::int64_t r0 = 0; r0 < rows; r0 += width) {
        const std::int64_t live = std::min(width, rows - r0);
        for (std::int64_t p = 0; p < units; ++p) {
            for (std::int64_t r = 0; r < live; ++r) {
                const std::uint32_t lo = x.at(row0 + r0 + r, 2 * p).bits;
                const std::uint32_t hi = 2 * p + 1 < k ? x.at(row0 + r0 + r, 2 * p + 1).bits : 0u;
                dst[r] = lo | (hi << 16);
            }
            for (std::int64_t r = live; r < width; ++r) dst[r] = 0u;
            dst += width;
        }
    }
}

template <class T>
void pack(View<T> x, std::int64_t row0, std::int64_t rows, std::int64_t k, std::int64_t width, packed_t<T>* dst)
{
    if constexpr (std::is_same_v<T, BFloat16>)
        pack_bf16(x, row0, rows, k, width, dst);
    else
        pack_f32(x, row0, rows, k, width, dst);
}

// ---------------------------------------------------------------------------------------------
// Storing: C block [rows x cols] = alpha * sum + beta * C, computed in f32 like the reference and
// rounded once into T (the convert kernels round to nearest even, subnormals included).
template <class T>
void store_block(const float* sum, std::int64_t ld_sum, std::int64_t rows, std::int64_t cols, float alpha, float beta, T* c, std::int64_t ldc,
                 float* row)
{
    for (std::int64_t i = 0; i < rows; ++i) {
        T* c_row = c + i * ldc;
        const float* s = sum + i * ld_sum;
        if (beta != 0.0f) {  // only then is C read
            if constexpr (std::is_same_v<T, float>) std::copy(c_row, c_row + cols, row);
            if constexpr (std::is_same_v<T, Half>) f16_to_f32(c_row, row, cols);
            if constexpr (std::is_same_v<T, BFloat16>) bf16_to_f32(c_row, row, cols);
            for (std::int64_t j = 0; j < cols; ++j) {
                float value = alpha * s[j];
                value += beta * row[j];
                row[j] = value;
            }
        } else {
            for (std::int64_t j = 0; j < cols; ++j) row[j] = alpha * s[j];
        }
        if constexpr (std::is_same_v<T, float>) std::copy(row, row + cols, c_row);
        if constexpr (std::is_same_v<T, Half>) f32_to_f16(row, c_row, cols);
        if constexpr (std::is_same_v<T, BFloat16>) f32_to_bf16(row, c_row, cols);
    }
}

struct Problem {
    Transpose trans_a, trans_b;
    std::int64_t k;
    double alpha, beta;
    std::int64_t lda, ldb, ldc;
};

// Computes the rows [i0, i1) x columns [j0, j1) of C: the whole loop nest of one thread.
template <class T>
void gemm_range(const Problem& pr, const T* a, const T* b, T* c, std::int64_t i0, std::int64_t i1, std::int64_t j0, std::int64_t j1)
{
    using P = packed_t<T>;
    const std::int64_t units = std::is_same_v<T, BFloat16> ? (pr.k + 1) / 2 : pr.k;
    const View<T> op_a{a, pr.lda, pr.trans_a == Transpose::yes};
    const View<T> op_b_t{b, pr.ldb, pr.trans_b == Transpose::no};  // op(B)^T: its rows are columns of op(B)
    // Buffers sized for the largest block this range has (small products allocate little).
    const std::int64_t mc_max = (std::min(MC, i1 - i0) + MR - 1) / MR * MR;
    const std::int64_t ld_sum = (std::min(NC, j1 - j0) + NR - 1) / NR * NR;
    std::vector<P> a_pack(std::size_t(mc_max * std::max<std::int64_t>(units, 1)));
    std::vector<P> b_pack(std::size_t(ld_sum * std::max<std::int64_t>(units, 1)));
    std::vector<float> sum(std::size_t(mc_max * ld_sum));  // f32 sums of one block of C
    std::vector<float> row(static_cast<std::size_t>(ld_sum));

    for (std::int64_t jc = j0; jc < j1; jc += NC) {
        const std::int64_t nc = std::min(NC, j1 - jc);
        pack<T>(op_b_t, jc, nc, pr.k, NR, b_pack.data());
        for (std::int64_t ic = i0; ic < i1; ic += MC) {
            const std::int64_t mc = std::min(MC, i1 - ic);
            pack<T>(op_a, ic, mc, pr.k, MR, a_pack.data());
            if (units == 0) std::fill(sum.begin(), sum.end(), 0.0f);
            for (std::int64_t pc = 0; pc < units; pc += KC) {
                const std::int64_t kc = std::min(KC, units - pc);
                for (std::int64_t ir = 0; ir < mc; ir += MR)
                    for (std::int64_t jr = 0; jr < nc; jr += NR) {
                        const P* a_panel = a_pack.data() + ir * units + pc * MR;
                        const P* b_panel = b_pack.data() + jr * units + pc * NR;
                        float* tile = sum.data() + ir * ld_sum + jr;
                        if constexpr (std::is_same_v<T, BFloat16>)
                            micro_kernel_bf16(kc, a_panel, b_panel, tile, ld_sum, pc == 0);
                        else
                            micro_kernel_f32(kc, a_panel, b_panel, tile, ld_sum, pc == 0);
                    }
            }
            store_block<T>(sum.data(), ld_sum, mc, nc, float(pr.alpha), float(pr.beta), c + ic * pr.ldc + jc, pr.ldc, row.data());
        }
    }
}

}  // namespace

template <class T>
void gemm(Transpose trans_a, Transpose trans_b, std::int64_t m, std::int64_t n, std::int64_t k, double alpha, const T* a, std::int64_t lda,
          const T* b, std::int64_t ldb, double beta, T* c, std::int64_t ldc, int threads)
{
    if (m == 0 || n == 0) return;
    const Problem pr{trans_a, trans_b, k, alpha, beta, lda, ldb, ldc};
    if (threads == 0) threads = m * n * k >= kThreadMinWork ? 2 : 1;
    const bool by_columns = n >= 2 * NR;  // else by rows, if C has enough of them
    if (threads < 2 || (!by_columns && m < 2 * MR)) {
        gemm_range<T>(pr, a, b, c, 0, m, 0, n);
        return;
    }
    // Two threads, each its own part of C. Split at a multiple of the tile, so the cut adds no
    // edge tiles: the columns when C is wide enough, else the rows. The helper is joined before
    // `cut` (which it reads by reference) goes out of scope.
    if (by_columns) {
        const std::int64_t cut = (n / 2 + NR - 1) / NR * NR;
        std::thread helper([&] { gemm_range<T>(pr, a, b, c, 0, m, cut, n); });
        gemm_range<T>(pr, a, b, c, 0, m, 0, cut);
        helper.join();
    } else {
        const std::int64_t cut = (m / 2 + MR - 1) / MR * MR;
        std::thread helper([&] { gemm_range<T>(pr, a, b, c, cut, m, 0, n); });
        gemm_range<T>(pr, a, b, c, 0, cut, 0, n);
        helper.join();
    }
}

#undef TINYAMP_GEMM_TARGET
#undef TINYAMP_GEMM_BF16_TARGET

#else  // not x86-64: gemm_supported() is false there, so this is never called

template <class T>
void gemm(Transpose trans_a, Transpose trans_b, std::int64_t m, std::int64_t n, std::int64_t k, double alpha, const T* a, std::int64_t lda,
          const T* b, std::int64_t ldb, double beta, T* c, std::int64_t ldc, int)
{
    gemm_reference<T>(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

#endif

#define TINYAMP_INSTANTIATE_FAST_GEMM(T)                                                                                            \
    template bool gemm_supported<T>(const CpuFeatures&);                                                                            \
    template void gemm<T>(Transpose, Transpose, std::int64_t, std::int64_t, std::int64_t, double, const T*, std::int64_t, const T*, \
                          std::int64_t, double, T*, std::int64_t, int);
TINYAMP_INSTANTIATE_FAST_GEMM(float)
TINYAMP_INSTANTIATE_FAST_GEMM(Half)
TINYAMP_INSTANTIATE_FAST_GEMM(BFloat16)
#undef TINYAMP_INSTANTIATE_FAST_GEMM
template bool gemm_supported<double>(const CpuFeatures&);

}  // namespace tinyamp::kernels::cpu::avx512
