#pragma once
/// \file
/// The few CUDA runtime calls the core needs (memory and copies).
///
/// Implemented in cuda_memory.cpp when tinyamp is built with CUDA, else in
/// cuda_memory_absent.cpp, whose functions say clearly that there is no CUDA backend.

#include <cstdint>

#include "tinyamp/core/device.h"

namespace tinyamp::cuda_memory {

/// Allocates \p nbytes of memory on GPU \p device_index (cudaMalloc). Throws Error
/// (ErrorKind::device) when the index names no usable GPU, when the GPU is out of memory, or
/// always when tinyamp was built without CUDA.
void* allocate(std::int64_t nbytes, int device_index);
/// Frees memory from allocate() (cudaFree); never throws. Does nothing without the CUDA backend.
void release(void* pointer, int device_index) noexcept;
/// Copies \p nbytes between any two devices (host memory is plain CPU memory), with
/// cudaMemcpy. Throws Error (ErrorKind::device) for an unusable GPU or a failed copy; without
/// the CUDA backend only CPU-to-CPU copies work.
void copy(void* dst, Device dst_device, const void* src, Device src_device, std::int64_t nbytes);

}  // namespace tinyamp::cuda_memory
