#pragma once
/// \file
/// Type promotion: which dtype an op on mixed inputs computes in, by PyTorch's rules.
///
/// The rules (outside autocast, which casts first):
///   - the higher category wins: float > integer > bool;
///   - within a category, tensors with dimensions outrank 0-D tensors, which outrank plain numbers:
///     an f16 tensor plus a 0-D f32 tensor (or plus 2.5) stays f16;
///   - two floats of one rank meet in promote_types (f16 with f32 gives f32; f16 with bf16 gives f32).
///
/// Also here: the device checks the ops share (require_cpu, op_device).

#include <string>
#include <initializer_list>
#include <vector>

#include "tinyamp/tensor/tensor.h"

namespace tinyamp {

/// The dtype an op on \p a and \p b computes in, by the rules above (torch.result_type).
/// Two tensors of one rank (both 0-D or both with dims) meet in promote_types; otherwise the 0-D
/// one decides only when its category is higher (an i64 tensor with a 0-D f64 tensor gives f64).
DType result_type(const Tensor& a, const Tensor& b);
/// A plain number as the 0-D tensor it acts as next to `like`: `like`'s dtype when that is a
/// float (so 2.5 never widens an f16 tensor), else i64 for a whole number and f32 for any other
/// (fractional, inf or NaN).
Tensor scalar_like(double value, const Tensor& like);
/// The float dtype a math function (exp, log, ...) computes in: the input's if it is a float, else f32.
DType float_result_type(DType dtype);
/// For ops that have no CUDA kernel yet: throws a device Error, naming \p op and the fix
/// (.cpu()), if a defined tensor of \p tensors is not on the CPU.
void require_cpu(const char* op, const std::vector<Tensor>& tensors);
/// The device an op with CPU and CUDA kernels runs on: the one device its (defined) tensors are
/// on. As in PyTorch, a 0-D CPU tensor (a scalar) may join tensors on a GPU; anything else on
/// two devices is an error that names them and the fix (.to(device)).
Device op_device(const char* op, std::initializer_list<Tensor> tensors);

}  // namespace tinyamp
