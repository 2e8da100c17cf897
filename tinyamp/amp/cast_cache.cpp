#include "tinyamp/amp/cast_cache.h"

#include <mutex>
#include <unordered_map>

#include "tinyamp/amp/autocast.h"
#include "tinyamp/autograd/grad_mode.h"

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

std::string label(const Tensor& t) { return t.name().empty() ? "the tensor" : t.name(); }

// Why a cast may not be cached; empty when it may.
std::string not_cacheable_because(const Tensor& source, DType dtype, DeviceType device_type)
{
    if (dtype != get_autocast_dtype(device_type)) return "only casts to the autocast dtype are cached";
    if (source.dtype() != DType::f32) return label(source) + " is not f32";
    if (!source.requires_grad()) return label(source) + " does not require grad (an activation, not a weight)";
    if (!source.is_leaf()) return label(source) + " is not a leaf (it was computed)";
    if (source.is_view()) return label(source) + " is a view";
    if (!is_autocast_cache_enabled()) return "the cache is disabled in this region";
    return "";
}

}  // namespace

CachedCast cached_cast(const Tensor& source, DType dtype, DeviceType device_type)
{
    std::string why_not = not_cacheable_because(source, dtype, device_type);
    if (!why_not.empty()) return {source.to(dtype), CacheOutcome::not_cacheable, std::move(why_not)};
    const std::string reason = label(source) + " is an f32 leaf that requires grad";
    {
        std::lock_guard lock(cache_mutex);
        const auto it = cache().find(Key{source.impl().get(), dtype});
        if (it != cache().end() && it->second.source.lock() == source.impl()) return {it->second.cast, CacheOutcome::hit, reason};
    }
    Tensor cast;
    {
        GradModeGuard grad_on(true);  // see the header: the fix for PyTorch issue 158232
        cast = source.to(dtype);
    }
    std::lock_guard lock(cache_mutex);
    cache()[Key{source.impl().get(), dtype}] = Entry{source.impl(), cast};
    return {cast, CacheOutcome::stored, reason};
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
