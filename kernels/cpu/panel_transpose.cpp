// GEMM packing's transpose (panel_transpose.h): the plain loops and an AVX2 version of 8 x 8 blocks.
#include "kernels/cpu/panel_transpose.h"

#include <algorithm>
#include <cstring>

#include "kernels/cpu/bf16_lanes.h"
#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/gemm_intrinsics.h"
#include "tinyamp/values/half_bits.h"

namespace tinyamp::kernels::cpu::blocked {
namespace {

// What the 8 x 8 blocks left: every row from step `first_step` on (the last k % 8 steps; all of
// them when no block ran), then the zero rows up to width for every step. `element(r, p)` is
// row r's value at step p, as the panel holds it.
template <class Out, class Element>
void transpose_rest(std::int64_t first_step, std::int64_t live, std::int64_t k, std::int64_t width, Out* dst, Element element)
{
    for (std::int64_t p = 0; p < k; ++p) {
        Out* slot = dst + p * width;
        if (p >= first_step)
            for (std::int64_t r = 0; r < live; ++r) slot[r] = element(r, p);
        for (std::int64_t r = live; r < width; ++r) slot[r] = Out(0);
    }
}

// Row r's word at step p, wherever it lies (memcpy: a bf16 pair may start at any even address).
template <class Word>
void transpose_words_rest(const Word* const* rows, std::int64_t first_step, std::int64_t live, std::int64_t k, std::int64_t width, Word* dst)
{
    transpose_rest(first_step, live, k, width, dst, [rows](std::int64_t r, std::int64_t p) {
        Word w;
        std::memcpy(&w, rows[r] + p, sizeof(Word));
        return w;
    });
}

#if defined(__x86_64__)
// The textbook 8 x 8 transpose in three rounds of shuffles: unpack pairs of rows, shuffle pairs of
// pairs, then swap 128-bit halves. Output j (column j of the block) goes to out + j * out_step.
// The words travel as floats, untouched: shuffles, loads and stores do not look at the bits.
// The 8 x 8 transpose of eight rows already in registers: r[i] is row i; column j goes to
// out + j * out_step, its first `lanes` values only (a group of fewer than 8 live rows, as the
// avx2 tier's 6-row panels of A: the masked stores leave the slots after them alone).
__attribute__((target("avx2"))) inline void transpose_8x8_registers(const __m256 (&r)[8], float* out, std::int64_t out_step, int lanes)
{
    // t[2i] / t[2i+1]: rows 2i and 2i+1 interleaved, columns {0,1,4,5} / {2,3,6,7}
    __m256 t[8];
    for (int i = 0; i < 4; ++i) {
        t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    // s[c] for c < 4: rows 0-3 of columns c and c + 4; s[4 + c]: rows 4-7 of the same columns
    __m256 s[8];
    for (int half = 0; half < 2; ++half) {
        const __m256* u = t + 4 * half;  // the four unpacked vectors of rows 0-3 or 4-7
        s[4 * half + 0] = _mm256_shuffle_ps(u[0], u[2], _MM_SHUFFLE(1, 0, 1, 0));
        s[4 * half + 1] = _mm256_shuffle_ps(u[0], u[2], _MM_SHUFFLE(3, 2, 3, 2));
        s[4 * half + 2] = _mm256_shuffle_ps(u[1], u[3], _MM_SHUFFLE(1, 0, 1, 0));
        s[4 * half + 3] = _mm256_shuffle_ps(u[1], u[3], _MM_SHUFFLE(3, 2, 3, 2));
    }
    if (lanes == 8) {
        for (int c = 0; c < 4; ++c) {
            _mm256_storeu_ps(out + c * out_step, _mm256_permute2f128_ps(s[c], s[4 + c], 0x20));        // column c
            _mm256_storeu_ps(out + (c + 4) * out_step, _mm256_permute2f128_ps(s[c], s[4 + c], 0x31));  // column c + 4
        }
        return;
    }
    const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(lanes), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    for (int c = 0; c < 4; ++c) {
        _mm256_maskstore_ps(out + c * out_step, mask, _mm256_permute2f128_ps(s[c], s[4 + c], 0x20));
        _mm256_maskstore_ps(out + (c + 4) * out_step, mask, _mm256_permute2f128_ps(s[c], s[4 + c], 0x31));
    }
}

// The textbook 8 x 8 transpose in three rounds of shuffles: unpack pairs of rows, shuffle pairs of
// pairs, then swap 128-bit halves. Output j (column j of the block) goes to out + j * out_step.
// The words travel as floats, untouched: shuffles, loads and stores do not look at the bits.
// With lanes < 8, rows lanes..7 are not read (zeros stand in) and not written.
template <class Word>
__attribute__((target("avx2"))) void transpose_8x8(const Word* const* rows, std::int64_t p, Word* out_words, std::int64_t out_step, int lanes)
{
    __m256 r[8];
    for (int i = 0; i < 8; ++i) r[i] = i < lanes ? _mm256_loadu_ps(reinterpret_cast<const float*>(rows[i] + p)) : _mm256_setzero_ps();
    transpose_8x8_registers(r, reinterpret_cast<float*>(out_words), out_step, lanes);  // the unaligned intrinsics may alias any type
}

// Eight 16-bit values at `from` as eight f32, exactly as half_bits.h widens them: bf16 by
// bf16_lanes.h (a NaN made quiet), f16 through vcvtph2ps (exact; F16C).
__attribute__((target("avx2"))) inline __m256 widen_8(const BFloat16* from) { return widen_bf16x8(from); }
__attribute__((target("avx2,f16c"))) inline __m256 widen_8(const Half* from)
{
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(from)));
}

// Every live row of 16-bit values (the last group of 8 may be partial), 8 steps at a time,
// widened in registers on the way; returns the first step it did not do (the last k % 8 are the
// caller's).
template <class T>
__attribute__((target("avx2,f16c"))) std::int64_t transpose_widened_blocks_avx2(const T* const* rows, std::int64_t live, std::int64_t k,
                                                                                std::int64_t width, float* dst)
{
    for (std::int64_t r0 = 0; r0 < live; r0 += 8) {
        const int lanes = int(std::min<std::int64_t>(8, live - r0));
        for (std::int64_t p = 0; p + 8 <= k; p += 8) {
            __m256 r[8];
            for (int i = 0; i < 8; ++i) r[i] = i < lanes ? widen_8(rows[r0 + i] + p) : _mm256_setzero_ps();
            transpose_8x8_registers(r, dst + p * width + r0, width, lanes);
        }
    }
    return k / 8 * 8;
}

// Every live row (the last group of 8 may be partial), 8 steps at a time; returns the first step it
// did not do (the last k % 8 are the caller's).
template <class Word>
std::int64_t transpose_blocks_avx2(const Word* const* rows, std::int64_t live, std::int64_t k, std::int64_t width, Word* dst)
{
    for (std::int64_t r0 = 0; r0 < live; r0 += 8) {
        const int lanes = int(std::min<std::int64_t>(8, live - r0));
        for (std::int64_t p = 0; p + 8 <= k; p += 8) transpose_8x8(rows + r0, p, dst + p * width + r0, width, lanes);
    }
    return k / 8 * 8;
}
#endif

}  // namespace

template <class Word>
void transpose_into_panel_reference(const Word* const* rows, std::int64_t live, std::int64_t k, std::int64_t width, Word* dst)
{
    transpose_words_rest(rows, 0, live, k, width, dst);
}

template <class Word>
void transpose_into_panel(const Word* const* rows, std::int64_t live, std::int64_t k, std::int64_t width, Word* dst)
{
    std::int64_t first_step = 0;  // the steps before it are done
#if defined(__x86_64__)
    if (cpu_features().avx2) first_step = transpose_blocks_avx2(rows, live, k, width, dst);
#endif
    transpose_words_rest(rows, first_step, live, k, width, dst);
}

namespace {
inline float widen_one(BFloat16 x) { return half_bits::f32_from_bf16(x.bits); }
inline float widen_one(Half x) { return half_bits::f32_from_f16(x.bits); }

// transpose_rest, widening one value at a time.
template <class T>
void transpose_widened_rest(const T* const* rows, std::int64_t first_step, std::int64_t live, std::int64_t k, std::int64_t width, float* dst)
{
    transpose_rest(first_step, live, k, width, dst, [rows](std::int64_t r, std::int64_t p) { return widen_one(rows[r][p]); });
}
}  // namespace

template <class T>
void transpose_widened_into_panel_reference(const T* const* rows, std::int64_t live, std::int64_t k, std::int64_t width, float* dst)
{
    transpose_widened_rest(rows, 0, live, k, width, dst);
}

template <class T>
void transpose_widened_into_panel(const T* const* rows, std::int64_t live, std::int64_t k, std::int64_t width, float* dst)
{
    std::int64_t first_step = 0;  // the steps before it are done
#if defined(__x86_64__)
    const CpuFeatures& f = cpu_features();
    if (f.avx2 && f.f16c) first_step = transpose_widened_blocks_avx2(rows, live, k, width, dst);
#endif
    transpose_widened_rest(rows, first_step, live, k, width, dst);
}

template void transpose_widened_into_panel_reference<Half>(const Half* const*, std::int64_t, std::int64_t, std::int64_t, float*);
template void transpose_widened_into_panel_reference<BFloat16>(const BFloat16* const*, std::int64_t, std::int64_t, std::int64_t, float*);
template void transpose_widened_into_panel<Half>(const Half* const*, std::int64_t, std::int64_t, std::int64_t, float*);
template void transpose_widened_into_panel<BFloat16>(const BFloat16* const*, std::int64_t, std::int64_t, std::int64_t, float*);

template void transpose_into_panel_reference<float>(const float* const*, std::int64_t, std::int64_t, std::int64_t, float*);
template void transpose_into_panel_reference<std::uint32_t>(const std::uint32_t* const*, std::int64_t, std::int64_t, std::int64_t,
                                                            std::uint32_t*);
template void transpose_into_panel<float>(const float* const*, std::int64_t, std::int64_t, std::int64_t, float*);
template void transpose_into_panel<std::uint32_t>(const std::uint32_t* const*, std::int64_t, std::int64_t, std::int64_t, std::uint32_t*);

}  // namespace tinyamp::kernels::cpu::blocked
