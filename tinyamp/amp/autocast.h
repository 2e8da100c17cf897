#pragma once
/// \file
/// amp::autocast: the region in which ops choose their own precision, like torch.autocast.
///
/// \code
///   {
///       amp::autocast region("cpu");                   // bf16 by default on the CPU
///       Tensor y = linear(x, w, b);                     // runs in bf16 (w cast once, then cached)
///       {
///           amp::autocast off("cpu", {.enabled = false});
///           Tensor p = softmax(y.to(f32), -1);          // an f32 sub-region
///       }
///   }                                                   // outermost exit: the cast cache is cleared
/// \endcode
///
/// Emulating a GPU on a CPU-only machine: `amp::autocast("cpu", {.dtype = f16, .table = cuda_table})`
/// casts exactly what a CUDA run would, on CPU tensors.

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "tinyamp/amp/autocast_state.h"

namespace tinyamp::amp {

/// The options of an autocast region (torch.autocast's dtype, enabled and cache_enabled
/// arguments, plus the policy table). Unset fields are inherited from the thread's state.
struct AutocastOptions {
    std::optional<DType> dtype;                ///< default: inherit the thread's current autocast dtype
    bool enabled = true;                       ///< false: a region with autocast off (an f32 sub-region)
    std::optional<bool> cache_enabled;         ///< default: inherit
    std::shared_ptr<const PolicyTable> table;  ///< default: inherit the current table
};

/// The autocast region, torch.autocast as a scope guard: while alive, ops on `device_type`
/// tensors are cast by the thread's policy table (amp/cast_policy.h) and run in the region's
/// dtype, f32 or their input dtypes as the table says; ops outside the table are left alone.
/// Regions nest; each one restores the previous state when it ends.
class autocast {
public:
    /// Enters the region: saves the thread's enabled flag, dtype, cache flag and table for
    /// `device_type`, then sets them from `options` (see resolve_autocast_options). A disabled
    /// region still counts as a nesting level. Throws Error(device) for a device type other than
    /// "cpu" or "cuda".
    /// [[nodiscard]]: an unnamed `amp::autocast("cpu");` would end at the semicolon and change
    /// nothing; the compiler warns about it (name the region: `amp::autocast region("cpu");`).
    [[nodiscard]] explicit autocast(std::string_view device_type, AutocastOptions options = {});
    /// Restores what the constructor saved; the outermost region of the thread also clears the
    /// cast cache.
    ~autocast();
    autocast(const autocast&) = delete;
    autocast& operator=(const autocast&) = delete;

    DeviceType device_type() const { return device_type_; }  ///< the device type the region covers
    bool enabled() const { return enabled_; }  ///< false when disabled on purpose or by a warning
    DType dtype() const { return dtype_; }     ///< the region's autocast dtype, as resolved (also when disabled)

private:
    DeviceType device_type_;
    bool enabled_;
    DType dtype_;
    bool previous_enabled_;
    DType previous_dtype_;
    bool previous_cache_enabled_;
    std::shared_ptr<const PolicyTable> previous_table_;
    bool table_given_;
};

/// What a region with these options would be, resolved now: inherited dtype and cache flag
/// filled in from the thread's state, and `enabled` turned off (with PyTorch's warning) for a
/// dtype or device that cannot run: "cuda" without a GPU, or a CPU dtype other than bf16 and f16.
/// The autocast constructor uses it too.
AutocastOptions resolve_autocast_options(DeviceType device_type, AutocastOptions options);

/// The decorator form (torch.autocast used as a decorator): a callable that runs `fn` inside a
/// region each call. As PyTorch's
/// decorator makes one autocast object when it decorates, the options are resolved (and any
/// warning given) once, here, not at each call.
template <class Fn>
auto autocast_function(std::string device_type, AutocastOptions options, Fn fn)
{
    options = resolve_autocast_options(parse_autocast_device_type(device_type), std::move(options));
    return [device_type = std::move(device_type), options = std::move(options), fn = std::move(fn)](auto&&... args) -> decltype(auto) {
        autocast region(device_type, options);
        return fn(std::forward<decltype(args)>(args)...);
    };
}

/// Empties the cast cache (the outermost region's exit does this by itself); as
/// torch.clear_autocast_cache.
void clear_autocast_cache();
/// How many casts the cache holds now (lessons show it).
std::size_t autocast_cache_size();

}  // namespace tinyamp::amp
