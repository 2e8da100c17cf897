#pragma once
/// \file
/// Autocast's state, all of it per thread (a new thread starts with autocast off).
///
///   * per device type: enabled, the autocast dtype (defaults: cuda f16, cpu bf16) and the policy
///     table in force (default: the device type's built-in table);
///   * cache_enabled (default true);
///   * one nesting counter shared by all device types: the cast cache is cleared when the
///     outermost autocast region of the thread exits.
///
/// The autocast guard (autocast.h) is the normal way to change it. The enabled, dtype and cache
/// getters and setters and the nesting counters mirror PyTorch's functions of the same names
/// (torch.is_autocast_enabled, torch.get_autocast_dtype, torch.autocast_increment_nesting, ...).

#include <memory>

#include "tinyamp/amp/cast_policy.h"
#include "tinyamp/values/device.h"
#include "tinyamp/values/dtype.h"

namespace tinyamp::amp {

/// Whether autocast is on for `device_type` on this thread (torch.is_autocast_enabled).
bool is_autocast_enabled(DeviceType device_type);
/// Turns autocast on or off for `device_type` on this thread, without a region.
void set_autocast_enabled(DeviceType device_type, bool enabled);
/// The dtype lower_precision_fp ops run in on `device_type` (default: cuda f16, cpu bf16), as
/// torch.get_autocast_dtype.
DType get_autocast_dtype(DeviceType device_type);
/// Sets the autocast dtype of `device_type` on this thread; it is not checked here (the autocast
/// region is what refuses a CPU dtype other than bf16 and f16).
void set_autocast_dtype(DeviceType device_type, DType dtype);
/// Whether lower-precision casts of weights go through the cast cache (default true).
bool is_autocast_cache_enabled();
/// Turns the cast cache on or off for this thread (casts already cached are kept, but not used
/// while it is off).
void set_autocast_cache_enabled(bool enabled);
/// Counts one more region entered on this thread. Returns the new depth.
int autocast_increment_nesting();
/// Counts one region left. Returns the new depth (0: the outermost region just ended); throws
/// Error(state) if no region was open.
int autocast_decrement_nesting();

/// The table autocast uses for `device_type` on this thread.
const PolicyTable& get_autocast_table(DeviceType device_type);
/// Makes `table` the one autocast uses for `device_type` on this thread. Null restores the
/// built-in table.
void set_autocast_table(DeviceType device_type, std::shared_ptr<const PolicyTable> table);
/// The table set by set_autocast_table(), or null when the built-in table is in force (the
/// autocast guard saves and restores it).
std::shared_ptr<const PolicyTable> get_autocast_table_override(DeviceType device_type);

/// "cpu" / "cuda"; anything else: Error(device) "unsupported autocast device_type".
DeviceType parse_autocast_device_type(std::string_view device_type);

/// True if some device type has autocast on and the thread is not inside a built-in op's
/// forward (where autocast stays out, like PyTorch's ExcludeDispatchKeyGuard).
bool autocast_layer_active();

/// While alive, the autocast layer is skipped on this thread (the dispatcher sets it around a
/// built-in op's forward, so ops used inside it are not autocast again).
class ExcludeAutocast {
public:
    ExcludeAutocast();   ///< skips the autocast layer from now on
    ~ExcludeAutocast();  ///< restores the previous setting
    ExcludeAutocast(const ExcludeAutocast&) = delete;
    ExcludeAutocast& operator=(const ExcludeAutocast&) = delete;

private:
    bool previous_;
};

/// While alive, autocast is off for every device type (the backward engine uses it: backward
/// ops run in the dtypes their forward saved, whatever region backward() is called in).
class DisableAutocast {
public:
    DisableAutocast();   ///< turns autocast off on cpu and cuda
    ~DisableAutocast();  ///< restores both enabled flags
    DisableAutocast(const DisableAutocast&) = delete;
    DisableAutocast& operator=(const DisableAutocast&) = delete;

private:
    bool previous_cpu_;
    bool previous_cuda_;
};

}  // namespace tinyamp::amp
