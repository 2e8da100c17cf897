#pragma once
// The few CUDA runtime calls the core needs (memory and copies). Implemented in
// cuda_memory.cpp when tinyamp is built with CUDA, else in cuda_memory_absent.cpp, whose
// functions say clearly that there is no CUDA backend.

#include <cstdint>

#include "tinyamp/core/device.h"

namespace tinyamp::cuda_memory {

void* allocate(std::int64_t nbytes, int device_index);
void release(void* pointer, int device_index) noexcept;
/// Copies between any two devices (host memory is plain CPU memory).
void copy(void* dst, Device dst_device, const void* src, Device src_device, std::int64_t nbytes);

}  // namespace tinyamp::cuda_memory
