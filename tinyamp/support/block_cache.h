#pragma once
/// \file
/// BlockCache: freed memory blocks kept for reuse, by exact size (not user API).
///
/// A training step frees and allocates blocks of the same sizes again and again. On the CPU,
/// aligned_alloc / free of large blocks (glibc consolidates its free lists) costs more than the
/// work on a small tensor; on a GPU, cudaFree waits for the whole device to finish and cudaMalloc
/// is slow, so each op would stall the GPU. Both devices keep freed blocks here instead, as
/// PyTorch's caching allocators do. Storage (the CPU) and cuda_memory (each GPU) own one each.
///
/// Blocks are matched by their exact (rounded) size: the shapes of one training step repeat in
/// the next, so exact matches hit, and no block is ever split. The memory counters
/// (memory_stats) count storages, not blocks, so a cache hit does not change them.

#include <cstddef>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace tinyamp::detail {

/// `Free` is how a block goes back to the system: `void(void*)`.
template <class Free>
class BlockCache {
public:
    /// Keeps at most \p max_cached_bytes in all, and no block over \p max_block_bytes.
    BlockCache(std::size_t max_cached_bytes, std::size_t max_block_bytes, Free free)
        : max_cached_bytes_(max_cached_bytes), max_block_bytes_(max_block_bytes), free_(free)
    {
    }
    BlockCache(const BlockCache&) = delete;
    BlockCache& operator=(const BlockCache&) = delete;
    ~BlockCache() { release_all(); }

    /// A cached block of exactly \p bytes (taken out of the cache), or null.
    void* take(std::size_t bytes)
    {
        std::lock_guard lock(mutex_);
        const auto it = blocks_.find(bytes);
        if (it == blocks_.end() || it->second.empty()) return nullptr;
        void* p = it->second.back();
        it->second.pop_back();
        cached_bytes_ -= bytes;
        return p;
    }

    /// Keeps \p p (a block of \p bytes) for reuse, or frees it when it is too big or the cache full.
    void give_back(void* p, std::size_t bytes)
    {
        if (bytes <= max_block_bytes_) {
            std::lock_guard lock(mutex_);
            if (cached_bytes_ + bytes <= max_cached_bytes_) {
                blocks_[bytes].push_back(p);
                cached_bytes_ += bytes;
                return;
            }
        }
        free_(p);
    }

    /// Frees every cached block (torch.cuda.empty_cache; also the retry after an out-of-memory).
    void release_all()
    {
        std::lock_guard lock(mutex_);
        for (auto& [bytes, list] : blocks_)
            for (void* p : list) free_(p);
        blocks_.clear();
        cached_bytes_ = 0;
    }

    /// The bytes held in the cache now (not in use by any storage).
    std::size_t cached_bytes() const
    {
        std::lock_guard lock(mutex_);
        return cached_bytes_;
    }

private:
    const std::size_t max_cached_bytes_, max_block_bytes_;
    Free free_;
    mutable std::mutex mutex_;
    std::unordered_map<std::size_t, std::vector<void*>> blocks_;
    std::size_t cached_bytes_ = 0;
};

}  // namespace tinyamp::detail
