// Built only with the CUDA backend: CUDA runtime calls for devices, memory and copies.
#include "tinyamp/tensor/cuda_memory.h"

#include <cuda_runtime.h>

#include <limits>
#include <memory>
#include <vector>

#include "tinyamp/support/block_cache.h"
#include "tinyamp/support/error.h"

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

// One cache of freed blocks per GPU (support/block_cache.h). Unbounded, as PyTorch's: a training
// step needs the same blocks again, and an out-of-memory empties the cache before it gives up.
void free_on_current_device(void* pointer) { cudaFree(pointer); }
using DeviceBlockCache = detail::BlockCache<void (*)(void*)>;
constexpr std::size_t kUnbounded = std::numeric_limits<std::size_t>::max();

DeviceBlockCache& block_cache(int device_index)
{
    // Never destroyed: at exit the CUDA runtime may already be torn down, and the driver frees
    // the process's memory anyway. Made on the first use, one per device the probe found.
    static auto* caches = [] {
        auto* made = new std::vector<std::unique_ptr<DeviceBlockCache>>();
        for (int i = 0; i < probe().count; ++i)
            made->push_back(std::make_unique<DeviceBlockCache>(kUnbounded, kUnbounded, &free_on_current_device));
        return made;
    }();
    return *caches->at(std::size_t(device_index));
}

// cudaMalloc returns 256-byte aligned blocks; sizes rounded up to 512 bytes (as PyTorch) match
// the same block for tensors of nearly the same size.
std::size_t rounded_block_bytes(std::int64_t nbytes) { return std::size_t((nbytes + 511) / 512 * 512); }

}  // namespace

bool cuda_built() { return true; }
int cuda_device_count() { return probe().count; }
std::string cuda_unavailable_reason() { return probe().reason; }

std::int64_t cuda_cached_bytes(int device_index)
{
    if (probe().count == 0) return 0;  // nothing can be cached without a GPU
    check_index(device_index);
    return std::int64_t(block_cache(device_index).cached_bytes());
}

void cuda_empty_cache()
{
    for (int i = 0; i < probe().count; ++i) {
        cudaSetDevice(i);
        block_cache(i).release_all();
    }
}

namespace cuda_memory {

void* allocate(std::int64_t nbytes, int device_index)
{
    check_index(device_index);
    check_cuda(cudaSetDevice(device_index), "cudaSetDevice");
    DeviceBlockCache& cache = block_cache(device_index);
    const std::size_t bytes = rounded_block_bytes(nbytes);
    if (void* cached = cache.take(bytes)) return cached;
    void* pointer = nullptr;
    cudaError_t err = cudaMalloc(&pointer, bytes);
    if (err == cudaErrorMemoryAllocation) {  // the cached blocks may be what is missing
        cudaGetLastError();                   // clear the error before trying again
        cache.release_all();
        err = cudaMalloc(&pointer, bytes);
    }
    if (err != cudaSuccess) cudaGetLastError();
    TINYAMP_CHECK(err == cudaSuccess, device, "out of memory on cuda:", device_index, " allocating ", nbytes,
                  " bytes (", cudaGetErrorString(err), "); use smaller tensors or batches");
    return pointer;
}

void release(void* pointer, std::int64_t nbytes, int device_index) noexcept
{
    // No cudaSetDevice: the cache is unbounded, so giving a block back never calls cudaFree; the
    // calls that do (allocate's retry, cuda_empty_cache) make the device current first.
    block_cache(device_index).give_back(pointer, rounded_block_bytes(nbytes));
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
