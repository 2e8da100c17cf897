#pragma once
// Error checks for the CUDA runtime and cuBLAS, shared by the .cu files and gemm_cublas.cpp.
// Internal to kernels/cuda: it includes CUDA headers, so the public headers (which ops include
// and g++ compiles) never include it.

#include <cuda_runtime.h>

#include <cstdint>

#include "tinyamp/support/error.h"

namespace tinyamp::kernels::cuda::detail {

/// Throws Error(device) naming the call and CUDA's own description when `err` is not success.
inline void check(cudaError_t err, const char* what)
{
    TINYAMP_CHECK(err == cudaSuccess, device, what, " failed: ", cudaGetErrorName(err), " (", cudaGetErrorString(err), ")");
}

/// Makes `device` current for the calls that follow (kernels launch on the current device).
inline void use_device(int device) { check(cudaSetDevice(device), "cudaSetDevice"); }

/// After a launch: a bad configuration shows up here at once; faults inside the kernel show up
/// at the next synchronizing call (a copy back to the host), with the same kind of message.
inline void check_launch(const char* kernel) { check(cudaGetLastError(), kernel); }

/// Blocks of `threads` that cover n items, capped so that grid.x stays far below its 2^31 - 1
/// limit: the kernels loop with a grid-sized stride, so fewer blocks still cover everything.
inline unsigned blocks_for(std::int64_t n, int threads)
{
    const std::int64_t wanted = (n + threads - 1) / threads;
    constexpr std::int64_t cap = 65535LL * 8;
    return unsigned(wanted < 1 ? 1 : wanted > cap ? cap : wanted);
}

}  // namespace tinyamp::kernels::cuda::detail
