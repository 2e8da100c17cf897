#pragma once
// CUDA conversions between dtypes over contiguous device buffers (kernels/: raw memory, no Tensor,
// and no CUDA types in this header, so g++-compiled code can call it).
//
// Same contract as kernels/cpu/convert.h: floats round to nearest even (f16/bf16 through CUDA's
// __float2half_rn / __double2half / __float2bfloat16_rn / ... intrinsics, which round exactly
// as tinyamp's Half and BFloat16 do), NaN stays NaN, to bool is x != 0, floats to i64 truncate.

#include <cstdint>

#include "tinyamp/values/dtype.h"

namespace tinyamp::kernels::cuda {

/// Converts n elements on `device`. Returns the index of the first element that has no value in
/// the target dtype (NaN, inf or out of range going to i64), or -1 when all converted. The
/// answer is read back from the device, so this call waits for the conversion to finish.
std::int64_t convert(const void* src, DType src_dtype, void* dst, DType dst_dtype, std::int64_t n, int device);

}  // namespace tinyamp::kernels::cuda
