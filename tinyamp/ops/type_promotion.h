#pragma once
// Which dtype an op on mixed inputs computes in, by PyTorch's rules (outside autocast):
//   * the higher category wins: float > integer > bool;
//   * within a category, tensors with dimensions outrank 0-D tensors, which outrank plain numbers:
//     an f16 tensor plus a 0-D f32 tensor (or plus 2.5) stays f16;
//   * two floats of one rank meet in promote_types (f16 with f32 gives f32; f16 with bf16 gives f32).

#include <string>
#include <initializer_list>
#include <vector>

#include "tinyamp/core/tensor.h"

namespace tinyamp {

DType result_type(const Tensor& a, const Tensor& b);
/// A plain number as the 0-D tensor it acts as next to `like`: `like`'s dtype when that is a
/// float (so 2.5 never widens an f16 tensor), else f32 for a fractional number or i64.
Tensor scalar_like(double value, const Tensor& like);
/// The float dtype a math function (exp, log, ...) computes in: the input's if it is a float, else f32.
DType float_result_type(DType dtype);
/// For ops that have no CUDA kernel yet: a clear error for tensors on another device.
void require_cpu(const char* op, const std::vector<Tensor>& tensors);
/// The device an op with CPU and CUDA kernels runs on: the one device its (defined) tensors are
/// on. As in PyTorch, a 0-D CPU tensor (a scalar) may join tensors on a GPU; anything else on
/// two devices is an error that names them and the fix (.to(device)).
Device op_device(const char* op, std::initializer_list<Tensor> tensors);

}  // namespace tinyamp
