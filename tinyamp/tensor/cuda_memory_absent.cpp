// Built when tinyamp has no CUDA backend (nvcc was not found): CPU tensors work, and every
// attempt to use a CUDA device says why it cannot.
#include <cstring>

#include "tinyamp/tensor/cuda_memory.h"
#include "tinyamp/support/error.h"

namespace tinyamp {
namespace {
constexpr const char* kReason =
    "tinyamp was built without its CUDA backend (nvcc was not found when CMake configured the build)";
}

bool cuda_built() { return false; }
int cuda_device_count() { return 0; }
std::string cuda_unavailable_reason() { return kReason; }
std::int64_t cuda_cached_bytes(int) { return 0; }
void cuda_empty_cache() {}

namespace cuda_memory {

void* allocate(std::int64_t, int device_index)
{
    TINYAMP_FAIL(device, "cannot allocate on cuda:", device_index, ": ", kReason,
                 "; install the CUDA toolkit and reconfigure, or use Device::cpu()");
}

void release(void*, std::int64_t, int) noexcept {}

void copy(void* dst, Device dst_device, const void* src, Device src_device, std::int64_t nbytes)
{
    TINYAMP_CHECK(dst_device.is_cpu() && src_device.is_cpu(), device, "cannot copy between ", src_device, " and ",
                  dst_device, ": ", kReason);
    std::memcpy(dst, src, std::size_t(nbytes));
}

}  // namespace cuda_memory
}  // namespace tinyamp
