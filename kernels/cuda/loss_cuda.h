#pragma once
// CUDA per-sample losses with class-index targets, the part of cross_entropy and nll_loss that
// reads a row at its target: one value per sample, in the compute dtype (f32, or f64 for f64
// input). The op then sums them (reduce.h) and rounds once into the input's dtype.

#include <cstdint>

#include "tinyamp/values/dtype.h"

namespace tinyamp::kernels::cuda {

/// losses[i] = log(sum_j e^(x_ij - m)) - (x_i,t - m), with m the row's maximum; 0 where
/// labels[i] == ignore_index. x is [n, classes] contiguous; labels are valid (checked by the op).
void cross_entropy_rows(const void* x, DType dtype, std::int64_t n, std::int64_t classes, const std::int64_t* labels,
                        std::int64_t ignore_index, void* losses, int device);

/// losses[i] = -x[i, labels[i]], 0 where labels[i] == ignore_index.
void nll_rows(const void* x, DType dtype, std::int64_t n, std::int64_t classes, const std::int64_t* labels, std::int64_t ignore_index,
              void* losses, int device);

/// onehot[i, labels[i]] = 1 and weight[i] = w for kept samples (both zeroed first by the
/// caller), in `dtype` (f32 or f64): the masks the losses' backward multiplies by.
void target_masks(const std::int64_t* labels, std::int64_t n, std::int64_t classes, std::int64_t ignore_index, double w, DType dtype,
                  void* onehot, void* weight, int device);

}  // namespace tinyamp::kernels::cuda
