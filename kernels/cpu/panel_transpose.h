#pragma once
// The transpose inside GEMM packing: `live` rows of k f32 values (each row contiguous) laid side
// by side into one micro-panel, as the micro-kernel reads it: step p of every row together.
//
//   dst[p * width + r] = rows[r][p]   for p < k, r < live
//   dst[p * width + r] = 0            for p < k, live <= r < width (the last panel's missing rows)
//
// Read one row at a time and written one step at a time, the plain version moves one float per
// load and store; for the weight matrices of a small MLP it was about 30% of the GEMM's
// instructions. The fast version moves 8 x 8 blocks through AVX2 shuffles. Only values move, so
// both give the same bits (a test holds them equal).

#include <cstdint>

namespace tinyamp::kernels::cpu::blocked {

/// The plain loops: the definition the fast version is tested against.
void transpose_into_panel_reference(const float* const* rows, std::int64_t live, std::int64_t k, std::int64_t width, float* dst);

/// The same result; whole 8 x 8 blocks with AVX2 when cpu_features() has it, the rest as above.
void transpose_into_panel(const float* const* rows, std::int64_t live, std::int64_t k, std::int64_t width, float* dst);

}  // namespace tinyamp::kernels::cpu::blocked
