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

/// The device element type of a host one: CUDA's __half and __nv_bfloat16 for tinyamp's Half and
/// BFloat16 (the same bits), the type itself otherwise.
template <class T> struct DeviceElement { using type = T; };
template <> struct DeviceElement<Half> { using type = __half; };
template <> struct DeviceElement<BFloat16> { using type = __nv_bfloat16; };

/// Calls fn(T{}) with the device element type of `dtype`, through the host's one switch over
/// dtypes (visit_dtype). The FP8/FP4 dtypes have no CUDA kernels in tinyamp (layout::convert
/// refuses them on a GPU first): Error(dtype).
template <class Fn>
void visit_device_dtype(DType dtype, Fn&& fn)
{
    if (is_minifloat(dtype))
        TINYAMP_FAIL(dtype, "no CUDA kernel takes ", dtype_name(dtype), " tensors; move them with .cpu() first");
    visit_dtype(dtype, [&](auto host) { fn(typename DeviceElement<decltype(host)>::type{}); });
}

/// The same, for the float dtypes only.
template <class Fn>
void visit_device_float(DType dtype, const char* what, Fn&& fn)
{
    if (!is_floating_point(dtype))
        TINYAMP_FAIL(dtype, what, " on CUDA needs a floating point dtype, got ", dtype_name(dtype));
    visit_float_dtype(dtype, [&](auto host) { fn(typename DeviceElement<decltype(host)>::type{}); });
}

/// A grid-stride loop index: 64-bit, so tensors over 2^31 elements are covered.
__device__ __forceinline__ std::int64_t global_index() { return std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; }
__device__ __forceinline__ std::int64_t grid_stride() { return std::int64_t(gridDim.x) * blockDim.x; }

}  // namespace tinyamp::kernels::cuda::detail
