#pragma once
/// \file
/// Storage: one block of memory that tensors (and their views) share, and the allocator that
/// counts live and peak bytes per dtype and per device.
///
/// The memory lesson reads these counters (as torch.cuda.memory_allocated and
/// max_memory_allocated, per dtype and for the CPU too).

#include <array>
#include <cstdint>
#include <iosfwd>
#include <string>

#include "tinyamp/values/device.h"
#include "tinyamp/values/dtype.h"
#include "tinyamp/values/shape.h"

namespace tinyamp {

/// Byte and storage counts for one dtype (or all of them) on one device.
struct MemoryCounter {
    std::int64_t live_bytes = 0;   ///< bytes held by storages alive now
    std::int64_t peak_bytes = 0;   ///< the most live_bytes reached since the last reset
    std::int64_t allocations = 0;  ///< storages alive now
};

/// A snapshot of one device's counters.
struct MemoryStats {
    Device device = Device::cpu();  ///< the device these counters are for
    std::array<MemoryCounter, kNumDTypes> by_dtype{};  ///< one counter per dtype, indexed by DType
    MemoryCounter total;  ///< all dtypes together (its peak is the peak of the sum)
    const MemoryCounter& operator[](DType dtype) const { return by_dtype[static_cast<int>(dtype)]; }  ///< stats[bf16]
    std::string to_string() const;  ///< a small table, one row per dtype in use
};

/// The counters of \p device now: every Storage is counted by its dtype and its exact size in
/// bytes, from construction to destruction (the allocator's reuse of freed blocks does not change them).
MemoryStats memory_stats(Device device = Device::cpu());
/// Sets every peak of `device` to what is live now, to measure the peak of the next step alone.
void reset_peak_memory_stats(Device device = Device::cpu());
std::ostream& operator<<(std::ostream& out, const MemoryStats& stats);  ///< writes stats.to_string()

/// The bytes a contiguous tensor of \p shape and \p dtype takes. A count beyond 64 bits is
/// Error(shape): no machine has that memory, and the product must not wrap around.
std::int64_t storage_nbytes(const Shape& shape, DType dtype);

/// "4.00 TiB", "512 B": a byte count a reader takes in at a glance (powers of 1024).
std::string readable_bytes(std::int64_t bytes);

/// The machine's memory, RAM and swap together (0 if the OS does not say).
std::int64_t machine_memory_bytes();

/// Throws the out-of-memory Error(value) when \p nbytes is more than the machine's memory (RAM
/// and swap): such a request can never be met, and with overcommit it would not fail until the
/// memory is touched (the OOM killer then ends the process). \p what says what the bytes are for
/// ("f32 elements").
void check_fits_in_memory(std::int64_t nbytes, const std::string& what);

/// Raw memory for `nbytes` bytes of `dtype` elements on `device`; 64-byte aligned on the CPU.
/// Not copyable: tensors share it through `std::shared_ptr<Storage>` (PyTorch's
/// torch.UntypedStorage, with the dtype kept for the memory counters).
class Storage {
public:
    /// Allocates the memory (none for 0 bytes) and counts it in memory_stats(). Throws
    /// Error(value) for a negative size or when the CPU is out of memory (more than the machine
    /// has, or the allocator fails; the message names the size), Error(device) for an unusable
    /// or full GPU. Nothing is counted when it throws.
    Storage(std::int64_t nbytes, DType dtype, Device device);
    ~Storage();  ///< frees the memory and uncounts it
    Storage(const Storage&) = delete;
    Storage& operator=(const Storage&) = delete;

    void* data() { return data_; }  ///< the first byte (null for 0 bytes); device memory for a GPU
    const void* data() const { return data_; }  ///< the first byte (null for 0 bytes); device memory for a GPU
    std::int64_t nbytes() const { return nbytes_; }  ///< the size in bytes
    DType dtype() const { return dtype_; }  ///< the dtype it was allocated for
    Device device() const { return device_; }  ///< where the memory is
    /// Counts in-place writes (copy_, set). Backward compares it with the version a tensor had
    /// when an op saved it, to refuse gradients computed from overwritten values.
    std::uint64_t version() const { return version_; }
    void bump_version() { ++version_; }  ///< called by in-place writes (Tensor::copy_, Tensor::set, optimizer steps, ...)

private:
    std::uint64_t version_ = 0;
    void* data_ = nullptr;
    std::int64_t nbytes_;
    DType dtype_;
    Device device_;
};

}  // namespace tinyamp
