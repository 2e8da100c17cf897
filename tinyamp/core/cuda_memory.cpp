// Built only with the CUDA backend: CUDA runtime calls for devices, memory and copies.
#include "tinyamp/core/cuda_memory.h"

#include <cuda_runtime.h>

#include "tinyamp/core/error.h"

namespace tinyamp {
namespace {

// cudaGetDeviceCount fails (not just returns 0) on machines without a driver, so both are checked.
struct DeviceProbe {
    int count = 0;
    std::string reason;
    DeviceProbe()
    {
        const cudaError_t err = cudaGetDeviceCount(&count);
        if (err != cudaSuccess) {
            reason = std::string("no usable CUDA driver/device (") + cudaGetErrorName(err) + ": " + cudaGetErrorString(err) + ")";
            count = 0;
            cudaGetLastError();  // clear the sticky error so later calls start clean
        } else if (count == 0) {
            reason = "the CUDA driver reports no GPU";
        }
    }
};

const DeviceProbe& probe()
{
    static const DeviceProbe result;
    return result;
}

void check_cuda(cudaError_t err, const char* what)
{
    TINYAMP_CHECK(err == cudaSuccess, device, what, " failed: ", cudaGetErrorName(err), " (", cudaGetErrorString(err), ")");
}

void check_index(int device_index)
{
    TINYAMP_CHECK(device_index >= 0 && device_index < probe().count, device, "CUDA device ", device_index,
                  " is not available: ", probe().reason.empty() ? "this machine has " + std::to_string(probe().count) + " CUDA device(s)"
                                                                   : probe().reason,
                  "; use Device::cpu() or a valid index");
}

}  // namespace

bool cuda_built() { return true; }
int cuda_device_count() { return probe().count; }
std::string cuda_unavailable_reason() { return probe().reason; }

namespace cuda_memory {

void* allocate(std::int64_t nbytes, int device_index)
{
    check_index(device_index);
    check_cuda(cudaSetDevice(device_index), "cudaSetDevice");
    void* pointer = nullptr;
    const cudaError_t err = cudaMalloc(&pointer, std::size_t(nbytes));
    TINYAMP_CHECK(err == cudaSuccess, device, "out of memory on cuda:", device_index, " allocating ", nbytes,
                  " bytes (", cudaGetErrorString(err), "); use smaller tensors or batches");
    return pointer;
}

void release(void* pointer, int device_index) noexcept
{
    cudaSetDevice(device_index);
    cudaFree(pointer);
}

void copy(void* dst, Device dst_device, const void* src, Device src_device, std::int64_t nbytes)
{
    if (nbytes == 0) return;
    if (dst_device.is_cuda()) check_index(dst_device.index());
    if (src_device.is_cuda()) check_index(src_device.index());
    const cudaMemcpyKind kind = src_device.is_cpu() ? (dst_device.is_cpu() ? cudaMemcpyHostToHost : cudaMemcpyHostToDevice)
                                                    : (dst_device.is_cpu() ? cudaMemcpyDeviceToHost : cudaMemcpyDeviceToDevice);
    check_cuda(cudaMemcpy(dst, src, std::size_t(nbytes), kind), "cudaMemcpy");
}

}  // namespace cuda_memory
}  // namespace tinyamp
