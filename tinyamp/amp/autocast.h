#pragma once
// amp::autocast: the region in which ops choose their own precision, like torch.autocast.
//
//   {
//       amp::autocast region("cpu");                   // bf16 by default on the CPU
//       Tensor y = linear(x, w, b);                     // runs in bf16 (w cast once, then cached)
//       {
//           amp::autocast off("cpu", {.enabled = false});
//           Tensor p = softmax(y.to(f32), -1);          // an f32 sub-region
//       }
//   }                                                   // outermost exit: the cast cache is cleared
//
// Emulating a GPU on a CPU-only machine: amp::autocast("cpu", {.dtype = f16, .table = cuda_table})
// casts exactly what a CUDA run would, on CPU tensors.

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "tinyamp/amp/autocast_state.h"

namespace tinyamp::amp {

struct AutocastOptions {
    std::optional<DType> dtype;                ///< default: inherit the thread's current autocast dtype
    bool enabled = true;
    std::optional<bool> cache_enabled;         ///< default: inherit
    std::shared_ptr<const PolicyTable> table;  ///< default: inherit the current table
};

class autocast {
public:
    explicit autocast(std::string_view device_type, AutocastOptions options = {});
    ~autocast();
    autocast(const autocast&) = delete;
    autocast& operator=(const autocast&) = delete;

    DeviceType device_type() const { return device_type_; }
    bool enabled() const { return enabled_; }  ///< false when disabled on purpose or by a warning
    DType dtype() const { return dtype_; }

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
/// dtype or device that cannot run. The autocast constructor uses it too.
AutocastOptions resolve_autocast_options(DeviceType device_type, AutocastOptions options);

/// The decorator form: a callable that runs `fn` inside a region each call. As PyTorch's
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

/// Empties the cast cache (the outermost region's exit does this by itself).
void clear_autocast_cache();
/// How many casts the cache holds now (lessons show it).
std::size_t autocast_cache_size();

}  // namespace tinyamp::amp
