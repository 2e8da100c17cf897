#pragma once
/// \file
/// The few CUDA runtime calls the core needs (memory and copies).
///
/// Implemented in cuda_memory.cpp when tinyamp is built with CUDA, else in
/// cuda_memory_absent.cpp, whose functions say clearly that there is no CUDA backend.

#include <cstdint>

#include "tinyamp/values/device.h"

namespace tinyamp::cuda_memory {

/// Allocates \p nbytes of memory on GPU \p device_index: a freed block of the same rounded size
/// from the device's cache (support/block_cache.h), else cudaMalloc; when that fails, the cache is
/// emptied and cudaMalloc tried once more. Throws Error (ErrorKind::device) when the index names
/// no usable GPU, when the GPU is out of memory, or always when tinyamp was built without CUDA.
void* allocate(std::int64_t nbytes, int device_index);
/// Gives memory from allocate(nbytes) back to the device's cache; never throws. All tinyamp's
/// kernels and copies run in order on the default stream, so a later kernel that gets the block
/// runs after every kernel that used it (no cudaFree, which would wait for the whole GPU).
/// Does nothing without the CUDA backend.
void release(void* pointer, std::int64_t nbytes, int device_index) noexcept;
/// Copies \p nbytes between any two devices (host memory is plain CPU memory), with
/// cudaMemcpy. Throws Error (ErrorKind::device) for an unusable GPU or a failed copy; without
/// the CUDA backend only CPU-to-CPU copies work.
void copy(void* dst, Device dst_device, const void* src, Device src_device, std::int64_t nbytes);

}  // namespace tinyamp::cuda_memory
