#pragma once
// Bulk conversions between dtypes over contiguous buffers (kernels/: raw memory, no Tensor).
//
// Every f32 <-> f16/bf16 conversion has a plain reference version (one element at a time through
// Half / BFloat16) and fast versions for CPUs that have the instructions. All of them give the
// same bits: tests hold each fast path equal to the reference over every special value, 10^7
// random inputs, and (in the long test) all 2^32 f32 inputs.

#include <cstdint>

#include "tinyamp/values/dtype.h"

namespace tinyamp::kernels::cpu {

// The signatures, written once: every path below declares its functions by these types
// (`F32ToF16 f32_to_f16;` declares `void f32_to_f16(const float* src, Half* dst, std::int64_t n)`).
using F32ToF16 = void(const float* src, Half* dst, std::int64_t n);
using F16ToF32 = void(const Half* src, float* dst, std::int64_t n);
using F32ToBF16 = void(const float* src, BFloat16* dst, std::int64_t n);
using BF16ToF32 = void(const BFloat16* src, float* dst, std::int64_t n);

namespace reference {
F32ToF16 f32_to_f16;
F16ToF32 f16_to_f32;
F32ToBF16 f32_to_bf16;
BF16ToF32 bf16_to_f32;
}  // namespace reference

// Portable fast paths, for CPUs without the instructions below: the bit-level rounding of
// tinyamp/values/half_bits.h, one element at a time but with no detour through double.
namespace bits {
F32ToF16 f32_to_f16;
F16ToF32 f16_to_f32;
F32ToBF16 f32_to_bf16;
BF16ToF32 bf16_to_f32;
}  // namespace bits

// Fast paths. Call one only when cpu_features() (or detect_cpu_features()) reports its feature.
namespace f16c {  // needs CpuFeatures::f16c
F32ToF16 f32_to_f16;
F16ToF32 f16_to_f32;
}  // namespace f16c
namespace avx2 {  // needs CpuFeatures::avx2: bf16 by integer rounding, 8 lanes at a time
F32ToBF16 f32_to_bf16;
BF16ToF32 bf16_to_f32;
}  // namespace avx2
namespace avx512 {  // needs CpuFeatures::avx512f: the same, 16 lanes at a time (bf16 -> f32 also on CPUs with AVX-512 BF16)
F32ToBF16 f32_to_bf16;
BF16ToF32 bf16_to_f32;
}  // namespace avx512
namespace avx512bf16 {  // needs CpuFeatures::avx512bf16: vcvtneps2bf16 (widening needs no BF16 instruction: avx512::bf16_to_f32)
F32ToBF16 f32_to_bf16;
}  // namespace avx512bf16

// The best path for this CPU, chosen once at run time.
F32ToF16 f32_to_f16;
F16ToF32 f16_to_f32;
F32ToBF16 f32_to_bf16;
BF16ToF32 bf16_to_f32;

/// Converts n elements between any two dtypes (floats round to nearest even; to bool is x != 0;
/// floats to i64 truncate toward zero). Returns the index of the first element that has no
/// value in the target dtype (NaN, inf or out of range going to i64), or -1 when all converted.
/// The minifloats (f8e4m3fn, f8e5m2, e8m0) go through f32, rounded once, with the overflow rule of
/// cast_overflow(); E8M0 has no value for 0, negative numbers and (not saturating) overflow. An
/// f4e2m1x2 element holds two values: converting it throws Error(dtype).
std::int64_t convert(const void* src, DType src_dtype, void* dst, DType dst_dtype, std::int64_t n);

/// convert() when either dtype is a minifloat (convert_minifloat.cpp).
std::int64_t convert_minifloat(const void* src, DType src_dtype, void* dst, DType dst_dtype, std::int64_t n);

}  // namespace tinyamp::kernels::cpu
