#pragma once
// LayerNorm's backward on the CPU in one pass over each row, for f32 inputs, with the statistics
// the forward saved (mean and 1/std per row):
//
//   xhat = (x - mean) rstd,  dxhat = dy * weight (dy without a weight)
//   dx = rstd ((dxhat - mean_j dxhat) - xhat mean_j(dxhat xhat))
//   dweight = sum over rows of dy xhat,  dbias = sum over rows of dy
//
// Rows go in chunks of kLayerNormRowsPerChunk, split between the threads; each chunk sums its own
// dweight and dbias, and the chunks' sums are added in chunk order, so the bits do not depend on
// the number of threads. The ops of tinyamp/ops/normalization.cpp compute the same formulas one
// pass per op (and stay the path for f64, batch norm and create_graph).

#include <cstdint>

namespace tinyamp::kernels::cpu {

inline constexpr std::int64_t kLayerNormRowsPerChunk = 32;

/// x, dy, dx: [rows, cols] contiguous; mean, rstd: [rows]; weight, dweight, dbias: [cols]. weight
/// may be null (no affine weight); dx, dweight and dbias may each be null (not wanted).
void layer_norm_backward(const float* dy, const float* x, const float* mean, const float* rstd, const float* weight, std::int64_t rows,
                         std::int64_t cols, float* dx, float* dweight, float* dbias);

}  // namespace tinyamp::kernels::cpu
