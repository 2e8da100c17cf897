#pragma once
// LayerNorm on the CPU for f32 inputs, one row at a time, the rows split between the threads.
//
// Forward: each row's mean and biased variance in two passes (the variance from deviations, as
// normalization_loops.h's group_moments, but summed in lane_reduce.h's 16 lanes rather than in one
// running sum), rstd = 1 / sqrt(var + eps), then y = (x - mean) rstd * weight + bias as
// normalize_groups computes it. Rows are independent, so the bits do not depend on the threads.
//
// Backward, in one pass over each row, with the statistics the forward saved (mean and rstd):
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

/// x, y: [rows, cols] contiguous; mean, rstd: [rows] (written); weight, bias: [cols], each may be
/// null (1 and 0).
void layer_norm_forward(const float* x, const float* weight, const float* bias, std::int64_t rows, std::int64_t cols, float eps, float* y,
                        float* mean, float* rstd);

/// x, dy, dx: [rows, cols] contiguous; mean, rstd: [rows]; weight, dweight, dbias: [cols]. weight
/// may be null (no affine weight); dx, dweight and dbias may each be null (not wanted).
void layer_norm_backward(const float* dy, const float* x, const float* mean, const float* rstd, const float* weight, std::int64_t rows,
                         std::int64_t cols, float* dx, float* dweight, float* dbias);

}  // namespace tinyamp::kernels::cpu
