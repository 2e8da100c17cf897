#include "tinyamp/tensor/storage.h"

#if defined(__linux__) && !defined(__EMSCRIPTEN__)
#include <sys/sysinfo.h>
#endif

#include <cstdlib>
#include <iomanip>
#include <map>
#include <mutex>
#include <ostream>
#include <sstream>

#include "tinyamp/support/block_cache.h"
#include "tinyamp/tensor/cuda_memory.h"
#include "tinyamp/support/error.h"

namespace tinyamp {
namespace {

constexpr std::int64_t kCpuAlignment = 64;  // one cache line; also what AVX-512 loads like

struct DeviceKey {
    DeviceType type;
    int index;
    bool operator<(const DeviceKey& o) const { return type != o.type ? type < o.type : index < o.index; }
};

// All counters, behind one mutex: allocation is rare next to the work done on the memory.
class MemoryLedger {
public:
    void on_allocate(Device device, DType dtype, std::int64_t nbytes)
    {
        std::lock_guard lock(mutex_);
        MemoryStats& s = stats_for(device);
        add(s.by_dtype[static_cast<int>(dtype)], nbytes, +1);
        add(s.total, nbytes, +1);
    }
    void on_release(Device device, DType dtype, std::int64_t nbytes)
    {
        std::lock_guard lock(mutex_);
        MemoryStats& s = stats_for(device);
        add(s.by_dtype[static_cast<int>(dtype)], -nbytes, -1);
        add(s.total, -nbytes, -1);
    }
    MemoryStats snapshot(Device device)
    {
        std::lock_guard lock(mutex_);
        return stats_for(device);
    }
    void reset_peaks(Device device)
    {
        std::lock_guard lock(mutex_);
        MemoryStats& s = stats_for(device);
        for (auto& c : s.by_dtype) c.peak_bytes = c.live_bytes;
        s.total.peak_bytes = s.total.live_bytes;
    }

private:
    static void add(MemoryCounter& c, std::int64_t bytes, std::int64_t count)
    {
        c.live_bytes += bytes;
        c.allocations += count;
        if (c.live_bytes > c.peak_bytes) c.peak_bytes = c.live_bytes;
    }
    MemoryStats& stats_for(Device device)
    {
        if (device == Device::cpu()) return cpu_;  // the common case, without a map lookup
        auto [it, inserted] = by_device_.try_emplace(DeviceKey{device.type(), device.index()});
        if (inserted) it->second.device = device;
        return it->second;
    }
    std::mutex mutex_;
    MemoryStats cpu_;  // device is cpu by default
    std::map<DeviceKey, MemoryStats> by_device_;  // the CUDA devices
};

// Freed CPU blocks kept for reuse (support/block_cache.h says why), by size rounded up to 64 bytes.
// Bounded in total; turned off under the sanitizers so they still see every free.
void free_cpu_block(void* p) { std::free(p); }
using CpuBlockCache = detail::BlockCache<void (*)(void*)>;

CpuBlockCache& block_cache()
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    constexpr std::size_t kMaxCachedBytes = 0;
#else
    constexpr std::size_t kMaxCachedBytes = std::size_t(64) << 20;
#endif
    constexpr std::size_t kMaxBlockBytes = std::size_t(16) << 20;
    // Made by the first Storage, so it outlives them all (see ledger()).
    static CpuBlockCache instance(kMaxCachedBytes, kMaxBlockBytes, &free_cpu_block);
    return instance;
}

std::size_t cpu_block_bytes(std::int64_t nbytes) { return std::size_t((nbytes + kCpuAlignment - 1) / kCpuAlignment * kCpuAlignment); }

MemoryLedger& ledger()
{
    // Built on first use, which is inside the first Storage constructor, so it outlives every
    // Storage, static ones included (statics die in reverse order of construction).
    static MemoryLedger instance;
    return instance;
}

[[noreturn]] void fail_out_of_memory(std::int64_t nbytes, const std::string& what)
{
    TINYAMP_FAIL(value, "out of CPU memory: cannot allocate ", readable_bytes(nbytes), " (", nbytes, " bytes) for ", what,
                 "; this machine has ", readable_bytes(machine_memory_bytes()), " of memory (RAM and swap) in all; use smaller tensors or batches");
}

}  // namespace

std::int64_t machine_memory_bytes()
{
    // Read once: every CPU Storage asks, and a system call per tensor would cost more than a
    // small op's work.
    // 0 where it is not known (not Linux, or Emscripten, whose sysinfo() is declared but absent):
    // then nothing is refused ahead, and an allocation too large fails as it happens.
    static const std::int64_t bytes = [] {
#if defined(__linux__) && !defined(__EMSCRIPTEN__)
        struct sysinfo info {};
        if (::sysinfo(&info) != 0) return std::int64_t{0};
        return (std::int64_t(info.totalram) + std::int64_t(info.totalswap)) * std::int64_t(info.mem_unit);
#else
        return std::int64_t{0};
#endif
    }();
    return bytes;
}

namespace {
bool fits_in_memory(std::int64_t nbytes)
{
    const std::int64_t memory = machine_memory_bytes();
    return memory == 0 || nbytes <= memory;
}
}  // namespace

void check_fits_in_memory(std::int64_t nbytes, const std::string& what)
{
    if (!fits_in_memory(nbytes)) fail_out_of_memory(nbytes, what);
}

std::int64_t storage_nbytes(const Shape& shape, DType dtype)
{
    std::int64_t bytes = 0;
    TINYAMP_CHECK(!__builtin_mul_overflow(numel(shape), dtype_size(dtype), &bytes), shape, "a ", dtype_name(dtype), " tensor of shape ",
                  shape_str(shape), " would take more bytes than a 64-bit count can hold; no machine has that memory");
    return bytes;
}

std::string readable_bytes(std::int64_t bytes)
{
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double value = double(bytes);
    std::size_t unit = 0;
    while (std::abs(value) >= 1024 && unit + 1 < std::size(units)) {
        value /= 1024;
        ++unit;
    }
    std::ostringstream out;
    if (unit == 0)
        out << bytes << " B";
    else
        out << std::fixed << std::setprecision(2) << value << ' ' << units[unit];
    return out.str();
}

MemoryStats memory_stats(Device device) { return ledger().snapshot(device); }
void reset_peak_memory_stats(Device device) { ledger().reset_peaks(device); }

std::string MemoryStats::to_string() const
{
    std::ostringstream out;
    out << "memory on " << device << ":  live " << total.live_bytes << " B, peak " << total.peak_bytes << " B, "
        << total.allocations << " storage" << (total.allocations == 1 ? "" : "s") << '\n';
    for (DType d : kAllDTypes) {
        const MemoryCounter& c = (*this)[d];
        if (c.peak_bytes == 0 && c.allocations == 0) continue;
        out << "  " << std::left << std::setw(5) << dtype_name(d) << std::right << " live " << std::setw(12)
            << c.live_bytes << " B   peak " << std::setw(12) << c.peak_bytes << " B   storages " << c.allocations << '\n';
    }
    return out.str();
}

std::ostream& operator<<(std::ostream& out, const MemoryStats& stats) { return out << stats.to_string(); }

Storage::Storage(std::int64_t nbytes, DType dtype, Device device) : nbytes_(nbytes), dtype_(dtype), device_(device)
{
    TINYAMP_CHECK(nbytes >= 0, value, "cannot allocate a negative number of bytes (", nbytes, ")");
    if (nbytes > 0) {
        if (device.is_cpu()) {
            // The message's text is made only on failure: this runs for every tensor.
            const auto out_of_memory = [&] { fail_out_of_memory(nbytes, std::string(dtype_name(dtype)) + " elements"); };
            if (!fits_in_memory(nbytes)) out_of_memory();
            const std::size_t rounded = cpu_block_bytes(nbytes);
            data_ = block_cache().take(rounded);
            if (!data_) data_ = std::aligned_alloc(kCpuAlignment, rounded);
            if (!data_) out_of_memory();
        } else {
            data_ = cuda_memory::allocate(nbytes, device.index());
        }
    }
    ledger().on_allocate(device, dtype, nbytes);
}

Storage::~Storage()
{
    if (data_) {
        if (device_.is_cpu())
            block_cache().give_back(data_, cpu_block_bytes(nbytes_));
        else
            cuda_memory::release(data_, nbytes_, device_.index());
    }
    ledger().on_release(device_, dtype_, nbytes_);
}

}  // namespace tinyamp
