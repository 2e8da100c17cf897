#pragma once
// Device-side element types and the load/store pair every kernel uses: f16 and bf16 are loaded
// into f32, computed there, and rounded once (to nearest even) when stored, as the CPU kernels
// do (kernels/cpu/elementwise_loops.h). f64 computes in f64, i64 and bool in i64.

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "tinyamp/values/dtype.h"

namespace tinyamp::kernels::cuda::detail {

template <class T> struct Compute { using type = float; };
template <> struct Compute<double> { using type = double; };
template <> struct Compute<std::int64_t> { using type = std::int64_t; };
template <> struct Compute<bool> { using type = std::int64_t; };
template <class T> using compute_t = typename Compute<T>::type;

template <class T>
__device__ __forceinline__ compute_t<T> load(T x) { return compute_t<T>(x); }
template <>
__device__ __forceinline__ float load<__half>(__half x) { return __half2float(x); }
template <>
__device__ __forceinline__ float load<__nv_bfloat16>(__nv_bfloat16 x) { return __bfloat162float(x); }

// Rounds a value of any arithmetic type into T once. Doubles go straight to f16/bf16 (not via
// f32, which would round twice), and i64 goes straight too, as tinyamp's Half/BFloat16 do.
template <class T, class V>
__device__ __forceinline__ T store(V v)
{
    if constexpr (std::is_same_v<T, __half>) {
        if constexpr (std::is_same_v<V, double>) return __double2half(v);
        else if constexpr (std::is_same_v<V, std::int64_t>) return __ll2half_rn((long long)v);
        else return __float2half_rn(float(v));
    } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
        if constexpr (std::is_same_v<V, double>) return __double2bfloat16(v);
        else if constexpr (std::is_same_v<V, std::int64_t>) return __ll2bfloat16_rn((long long)v);
        else return __float2bfloat16_rn(float(v));
    } else if constexpr (std::is_same_v<T, bool>) {
        return v != V(0);
    } else {
        return T(v);
    }
}

/// Calls fn(T{}) with the device element type of `dtype`. The FP8/FP4 dtypes have no CUDA kernels
/// in tinyamp (layout::convert refuses them on a GPU first): Error(dtype).
template <class Fn>
void visit_device_dtype(DType dtype, Fn&& fn)
{
    switch (dtype) {
    case DType::f64: return fn(double{});
    case DType::f32: return fn(float{});
    case DType::f16: return fn(__half{});
    case DType::bf16: return fn(__nv_bfloat16{});
    case DType::i64: return fn(std::int64_t{});
    case DType::boolean: return fn(bool{});
    default: TINYAMP_FAIL(dtype, "no CUDA kernel takes ", dtype_name(dtype), " tensors; move them with .cpu() first");
    }
}

/// The same, for the float dtypes only.
template <class Fn>
void visit_device_float(DType dtype, const char* what, Fn&& fn)
{
    switch (dtype) {
    case DType::f64: return fn(double{});
    case DType::f32: return fn(float{});
    case DType::f16: return fn(__half{});
    case DType::bf16: return fn(__nv_bfloat16{});
    default: TINYAMP_FAIL(dtype, what, " on CUDA needs a floating point dtype, got ", dtype_name(dtype));
    }
}

/// A grid-stride loop index: 64-bit, so tensors over 2^31 elements are covered.
__device__ __forceinline__ std::int64_t global_index() { return std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; }
__device__ __forceinline__ std::int64_t grid_stride() { return std::int64_t(gridDim.x) * blockDim.x; }

}  // namespace tinyamp::kernels::cuda::detail
