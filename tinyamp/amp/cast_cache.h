#pragma once
/// \file
/// The cast cache: inside an autocast region, an f32 weight is cast to the low-precision dtype
/// once and reused by every op that needs it (PyTorch's cached_cast).
///
/// Only casts that satisfy all of these are cached: to the autocast dtype, from an f32 leaf that
/// requires grad and is not a view, with the cache enabled. It is process-wide, keyed by tensor
/// identity and target dtype (a weak reference, so it never keeps a weight alive), and cleared
/// when the outermost region of a thread exits.

#include <cstddef>

#include "tinyamp/tensor/tensor.h"

namespace tinyamp::amp {

/// What the cast cache did for one cast: `not_cacheable` (the cast does not qualify, see
/// CacheReason: made afresh and not stored), `stored` (a miss: made and stored for the rest of the
/// region) or `hit` (the stored cast returned: no new cast, the same graph node). Traces show
/// stored and hit.
enum class CacheOutcome { not_cacheable, stored, hit };

/// Why a cast was (not) cached. A code, not text: the text is only built when a trace or
/// TINYAMP_DEBUG asks for it (trace::explain_cache_reason), so the common path makes no strings.
enum class CacheReason {
    f32_leaf_requiring_grad,  ///< cacheable: stored or hit
    not_lower_precision,      ///< an fp32 or promote cast: only lower-precision casts are cached
    not_autocast_dtype,       ///< a target other than the region's dtype
    not_f32,                  ///< the source is not f32
    no_grad_required,         ///< the source does not require grad (an activation, not a weight)
    not_leaf,                 ///< the source was computed, not a leaf
    is_view,                  ///< the source is a view of another tensor
    cache_disabled,           ///< cache_enabled is off in this region
};

/// The result of cached_cast(): the cast tensor and what the cache did.
struct CachedCast {
    Tensor tensor;                                         ///< the source in the target dtype
    CacheOutcome cache = CacheOutcome::not_cacheable;      ///< not_cacheable, stored or hit
    CacheReason reason = CacheReason::not_autocast_dtype;  ///< the first rule that failed, or f32_leaf_requiring_grad
};

/// How the autocast layer casts a tensor: the dispatcher's differentiable `to` op (`x.to(dtype)`,
/// defined with the ops). The layer sits below the ops, so it cannot call them itself: the
/// dispatcher hands this down with each cast (docs/architecture.md, the folder map).
using CastFunction = Tensor (*)(const Tensor& source, DType dtype);

/// `source` cast to `dtype` (the autocast dtype of `device_type`) by `cast`, through the cache when allowed.
/// The cast is a real `to` node, so gradients flow back to the f32 source in f32. A miss builds it with grad mode on, so a cast first made under
/// NoGradGuard still carries the graph when a later forward in grad mode reuses it.
CachedCast cached_cast(const Tensor& source, DType dtype, DeviceType device_type, CastFunction cast);

}  // namespace tinyamp::amp
