#pragma once
/// \file
/// Device: where a tensor's storage lives, CPU or one CUDA GPU.

#include <iosfwd>
#include <string>

namespace tinyamp {

/// The kind of device, as the `device_type` string of torch.autocast ("cpu" or "cuda").
enum class DeviceType { cpu, cuda };

/// Where a tensor's storage lives: the CPU, or one CUDA GPU by index (PyTorch's torch.device).
/// A small value type, compared with ==; make one with cpu(), cuda(i) or parse("cuda:1").
class Device {
public:
    /// The CPU (its index is 0).
    static constexpr Device cpu() { return Device(DeviceType::cpu, 0); }
    /// CUDA GPU number \p index. Nothing is checked here: using a GPU that is not there (or a
    /// build without the CUDA backend) throws Error (ErrorKind::device) when memory is allocated
    /// or copied there.
    static constexpr Device cuda(int index = 0) { return Device(DeviceType::cuda, index); }
    /// Parses "cpu", "cuda", "cuda:1". Anything else throws Error (ErrorKind::device).
    static Device parse(const std::string& text);

    constexpr DeviceType type() const { return type_; }  ///< cpu or cuda
    constexpr int index() const { return index_; }  ///< the GPU number (0 for the CPU)
    constexpr bool is_cpu() const { return type_ == DeviceType::cpu; }  ///< type() == DeviceType::cpu
    constexpr bool is_cuda() const { return type_ == DeviceType::cuda; }  ///< type() == DeviceType::cuda
    std::string str() const;  ///< "cpu" or "cuda:0"

    constexpr bool operator==(const Device&) const = default;  ///< same type and index

private:
    constexpr Device(DeviceType type, int index) : type_(type), index_(index) {}
    DeviceType type_;
    int index_;
};

const char* device_type_name(DeviceType type);  ///< "cpu" or "cuda", as autocast's device_type
std::ostream& operator<<(std::ostream& out, const Device& device);  ///< writes device.str()

/// True when tinyamp was built with its CUDA backend (nvcc was found at configure time).
bool cuda_built();
/// Number of CUDA devices that can be used now (0 without the backend, a driver or a GPU).
int cuda_device_count();
/// Why no CUDA device can be used ("" when one can); error messages quote it.
std::string cuda_unavailable_reason();
/// Bytes that GPU \p device_index holds in tinyamp's cache of freed blocks (torch.cuda's
/// memory_reserved() less memory_allocated()); 0 without the backend or a GPU, and before any GPU
/// tensor was freed. An index that names no GPU of this machine (when it has one) is Error(device).
std::int64_t cuda_cached_bytes(int device_index = 0);
/// Frees every cached block of every GPU (cudaFree), as torch.cuda.empty_cache(): the memory
/// becomes available to other programs. Tensors alive are not touched. Does nothing without CUDA.
void cuda_empty_cache();

}  // namespace tinyamp
