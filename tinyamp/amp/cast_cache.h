#pragma once
// The cast cache: inside an autocast region, an f32 weight is cast to the low-precision dtype
// once and reused by every op that needs it (PyTorch's cached_cast). Only casts that satisfy all
// of these are cached: to the autocast dtype, from an f32 leaf that requires grad and is not a
// view, with the cache enabled. It is process-wide, keyed by tensor identity (a weak reference,
// so it never keeps a weight alive), and cleared when the outermost region of a thread exits.

#include <cstddef>
#include <string>

#include "tinyamp/core/tensor.h"

namespace tinyamp::amp {

enum class CacheOutcome { not_cacheable, stored, hit };

/// Why a cast was (not) cached. A code, not text: the text is only built when a trace or
/// TINYAMP_DEBUG asks for it (explain_cache_reason), so the common path makes no strings.
enum class CacheReason {
    f32_leaf_requiring_grad,  ///< cacheable: stored or hit
    not_lower_precision,      ///< an fp32 or promote cast: only lower-precision casts are cached
    not_autocast_dtype,       ///< a target other than the region's dtype
    not_f32,
    no_grad_required,
    not_leaf,
    is_view,
    cache_disabled,
};

struct CachedCast {
    Tensor tensor;
    CacheOutcome cache = CacheOutcome::not_cacheable;
    CacheReason reason = CacheReason::not_autocast_dtype;
};

/// The reason as a sentence about `source`: "w is an f32 leaf that requires grad".
std::string explain_cache_reason(CacheReason reason, const Tensor& source);

/// `source` cast to `dtype` (the autocast dtype of `device_type`), through the cache when allowed.
/// The cast is a real `to` node. A miss builds it with grad mode on, so a cast first made under
/// NoGradGuard still carries the graph when a later forward in grad mode reuses it.
CachedCast cached_cast(const Tensor& source, DType dtype, DeviceType device_type);

}  // namespace tinyamp::amp
