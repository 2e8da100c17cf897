#pragma once
// Autocast's state, all of it per thread (a new thread starts with autocast off):
//   * per device type: enabled, the autocast dtype (defaults: cuda f16, cpu bf16) and the policy
//     table in force (default: the device type's built-in table);
//   * cache_enabled (default true);
//   * one nesting counter shared by all device types: the cast cache is cleared when the
//     outermost autocast region of the thread exits.
// The autocast guard (autocast.h) is the normal way to change it.

#include <memory>

#include "tinyamp/amp/cast_policy.h"
#include "tinyamp/core/device.h"
#include "tinyamp/core/dtype.h"

namespace tinyamp::amp {

bool is_autocast_enabled(DeviceType device_type);
void set_autocast_enabled(DeviceType device_type, bool enabled);
DType get_autocast_dtype(DeviceType device_type);
void set_autocast_dtype(DeviceType device_type, DType dtype);
bool is_autocast_cache_enabled();
void set_autocast_cache_enabled(bool enabled);
/// Returns the new depth.
int autocast_increment_nesting();
/// Returns the new depth (0: the outermost region just ended).
int autocast_decrement_nesting();

/// The table autocast uses for `device_type` on this thread.
const PolicyTable& get_autocast_table(DeviceType device_type);
/// Null restores the built-in table.
void set_autocast_table(DeviceType device_type, std::shared_ptr<const PolicyTable> table);
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
    ExcludeAutocast();
    ~ExcludeAutocast();
    ExcludeAutocast(const ExcludeAutocast&) = delete;
    ExcludeAutocast& operator=(const ExcludeAutocast&) = delete;

private:
    bool previous_;
};

/// While alive, autocast is off for every device type (the backward engine uses it: backward
/// ops run in the dtypes their forward saved, whatever region backward() is called in).
class DisableAutocast {
public:
    DisableAutocast();
    ~DisableAutocast();
    DisableAutocast(const DisableAutocast&) = delete;
    DisableAutocast& operator=(const DisableAutocast&) = delete;

private:
    bool previous_cpu_;
    bool previous_cuda_;
};

}  // namespace tinyamp::amp
