#pragma once
// Storage: one block of memory that tensors (and their views) share, and the allocator that
// counts live and peak bytes per dtype and per device. The memory lesson reads these counters.

#include <array>
#include <cstdint>
#include <iosfwd>
#include <string>

#include "tinyamp/core/device.h"
#include "tinyamp/core/dtype.h"

namespace tinyamp {

struct MemoryCounter {
    std::int64_t live_bytes = 0;   ///< bytes held by storages alive now
    std::int64_t peak_bytes = 0;   ///< the most live_bytes reached since the last reset
    std::int64_t allocations = 0;  ///< storages alive now
};

/// A snapshot of one device's counters.
struct MemoryStats {
    Device device = Device::cpu();
    std::array<MemoryCounter, kNumDTypes> by_dtype{};
    MemoryCounter total;  ///< all dtypes together (its peak is the peak of the sum)
    const MemoryCounter& operator[](DType dtype) const { return by_dtype[static_cast<int>(dtype)]; }
    std::string to_string() const;  ///< a small table, one row per dtype in use
};

MemoryStats memory_stats(Device device = Device::cpu());
/// Sets every peak of `device` to what is live now, to measure the peak of the next step alone.
void reset_peak_memory_stats(Device device = Device::cpu());
std::ostream& operator<<(std::ostream& out, const MemoryStats& stats);

/// Raw memory for `nbytes` bytes of `dtype` elements on `device`; 64-byte aligned on the CPU.
/// Not copyable: tensors share it through std::shared_ptr<Storage>.
class Storage {
public:
    Storage(std::int64_t nbytes, DType dtype, Device device);
    ~Storage();
    Storage(const Storage&) = delete;
    Storage& operator=(const Storage&) = delete;

    void* data() { return data_; }
    const void* data() const { return data_; }
    std::int64_t nbytes() const { return nbytes_; }
    DType dtype() const { return dtype_; }
    Device device() const { return device_; }
    /// Counts in-place writes (copy_, set). Backward compares it with the version a tensor had
    /// when an op saved it, to refuse gradients computed from overwritten values.
    std::uint64_t version() const { return version_; }
    void bump_version() { ++version_; }

private:
    std::uint64_t version_ = 0;
    void* data_ = nullptr;
    std::int64_t nbytes_;
    DType dtype_;
    Device device_;
};

}  // namespace tinyamp
