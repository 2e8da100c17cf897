#include "tinyamp/amp/cast_cache.h"

#include <mutex>
#include <unordered_map>

#include "tinyamp/amp/autocast.h"
#include "tinyamp/support/grad_mode.h"

namespace tinyamp::amp {
namespace {

struct Entry {
    std::weak_ptr<TensorImpl> source;  // tells a live weight from a new tensor at a reused address
    Tensor cast;
};

// Keyed by the source tensor and the target dtype: a bf16 region nested in an f16 one must not
// get the f16 cast back.
struct Key {
    const TensorImpl* source;
    DType dtype;
    bool operator==(const Key&) const = default;
};
struct KeyHash {
    std::size_t operator()(const Key& k) const { return std::hash<const void*>()(k.source) * 31 + std::size_t(k.dtype); }
};

std::mutex cache_mutex;
std::unordered_map<Key, Entry, KeyHash>& cache()
{
    static std::unordered_map<Key, Entry, KeyHash> entries;
    return entries;
}

// Why a cast may not be cached, or f32_leaf_requiring_grad when it may.
CacheReason cache_reason(const Tensor& source, DType dtype, DeviceType device_type)
{
    if (dtype != get_autocast_dtype(device_type)) return CacheReason::not_autocast_dtype;
    if (source.dtype() != DType::f32) return CacheReason::not_f32;
    if (!source.requires_grad()) return CacheReason::no_grad_required;
    if (!source.is_leaf()) return CacheReason::not_leaf;
    if (source.is_view()) return CacheReason::is_view;
    if (!is_autocast_cache_enabled()) return CacheReason::cache_disabled;
    return CacheReason::f32_leaf_requiring_grad;
}

}  // namespace

CachedCast cached_cast(const Tensor& source, DType dtype, DeviceType device_type, CastFunction cast)
{
    const CacheReason reason = cache_reason(source, dtype, device_type);
    if (reason != CacheReason::f32_leaf_requiring_grad) return {cast(source, dtype), CacheOutcome::not_cacheable, reason};
    {
        std::lock_guard lock(cache_mutex);
        const auto it = cache().find(Key{source.impl().get(), dtype});
        // The same tensor, not a new one at a reused address: the entry's weak_ptr keeps its control
        // block alive, so only the same tensor shares it (compared without the atomics of lock()).
        const auto same_owner = [](const std::weak_ptr<TensorImpl>& a, const std::shared_ptr<TensorImpl>& b) {
            return !a.owner_before(b) && !b.owner_before(a);
        };
        if (it != cache().end() && same_owner(it->second.source, source.impl()))
            return {it->second.cast, CacheOutcome::hit, reason};
    }
    Tensor made;
    {
        GradModeGuard grad_on(true);  // see the header: the fix for PyTorch issue 158232
        made = cast(source, dtype);
    }
    std::lock_guard lock(cache_mutex);
    cache()[Key{source.impl().get(), dtype}] = Entry{source.impl(), made};
    return {made, CacheOutcome::stored, reason};
}

void clear_autocast_cache()
{
    std::lock_guard lock(cache_mutex);
    cache().clear();
}

std::size_t autocast_cache_size()
{
    std::lock_guard lock(cache_mutex);
    return cache().size();
}

}  // namespace tinyamp::amp
