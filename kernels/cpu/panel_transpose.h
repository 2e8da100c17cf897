#pragma once
// The transpose inside GEMM packing: `live` rows of k 32-bit words (f32 values, or the bf16 pairs
// of the avx512_bf16 tier), each row contiguous, laid side by side into one micro-panel, as the
// micro-kernel reads it: step p of every row together.
//
//   dst[p * width + r] = rows[r][p]   for p < k, r < live
//   dst[p * width + r] = 0            for p < k, live <= r < width (the last panel's missing rows)
//
// Read one row at a time and written one step at a time, the plain version moves one float per
// load and store; for the weight matrices of a small MLP it was about 30% of the GEMM's
// instructions. The fast version moves 8 x 8 blocks through AVX2 shuffles, a last group of fewer
// than 8 rows (the avx2 tier's 6-row panels of A) with zero rows standing in and masked stores.
// Only values move, so both give the same bits (a test holds them equal).

#include <cstdint>

#include "tinyamp/values/half.h"

namespace tinyamp::kernels::cpu::blocked {

/// The plain loops: the definition the fast version is tested against. Word is float or
/// std::uint32_t; rows need not be aligned to 4 bytes (bf16 pairs start at any bf16).
template <class Word>
void transpose_into_panel_reference(const Word* const* rows, std::int64_t live, std::int64_t k, std::int64_t width, Word* dst);

/// The same result; whole 8 x 8 blocks with AVX2 when cpu_features() has it, the rest as above.
template <class Word>
void transpose_into_panel(const Word* const* rows, std::int64_t live, std::int64_t k, std::int64_t width, Word* dst);

/// The same layout for rows of f16 or bf16, widened to f32 on the way (exactly, as half_bits.h
/// does, a bf16 NaN made quiet): one pass where widening each row into a buffer and then
/// transposing the buffer took two. The fast version widens 8 x 8 blocks in AVX2 registers
/// and F16C; a test holds it equal to the reference.
template <class T>
void transpose_widened_into_panel_reference(const T* const* rows, std::int64_t live, std::int64_t k, std::int64_t width, float* dst);
template <class T>
void transpose_widened_into_panel(const T* const* rows, std::int64_t live, std::int64_t k, std::int64_t width, float* dst);

}  // namespace tinyamp::kernels::cpu::blocked
