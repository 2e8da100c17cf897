#include "tinyamp/amp/autocast.h"

#include "tinyamp/support/warning.h"

namespace tinyamp::amp {

AutocastOptions resolve_autocast_options(DeviceType device_type, AutocastOptions options)
{
    options.dtype = options.dtype.value_or(get_autocast_dtype(device_type));
    options.cache_enabled = options.cache_enabled.value_or(is_autocast_cache_enabled());
    if (options.enabled && device_type == DeviceType::cuda && cuda_device_count() == 0) {
        warn("User provided device_type of 'cuda', but CUDA is not available. Disabling");
        options.enabled = false;
    }
    if (options.enabled && device_type == DeviceType::cpu && *options.dtype != DType::bf16 && *options.dtype != DType::f16) {
        warn("In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
             "CPU Autocast only supports dtype of torch.bfloat16, torch.float16 currently.");
        options.enabled = false;
    }
    return options;
}

// Validation and order of saving/setting follow torch.amp.autocast's __init__ and __enter__.
autocast::autocast(std::string_view device_type, AutocastOptions options) : device_type_(parse_autocast_device_type(device_type))
{
    options = resolve_autocast_options(device_type_, std::move(options));
    enabled_ = options.enabled;
    dtype_ = *options.dtype;
    table_given_ = options.table != nullptr;
    previous_cache_enabled_ = is_autocast_cache_enabled();
    previous_enabled_ = is_autocast_enabled(device_type_);
    previous_dtype_ = get_autocast_dtype(device_type_);
    previous_table_ = get_autocast_table_override(device_type_);
    set_autocast_enabled(device_type_, enabled_);
    set_autocast_dtype(device_type_, dtype_);
    if (table_given_) set_autocast_table(device_type_, std::move(options.table));
    autocast_increment_nesting();  // disabled regions count too
    set_autocast_cache_enabled(*options.cache_enabled);
}

autocast::~autocast()
{
    if (autocast_decrement_nesting() == 0) clear_autocast_cache();
    set_autocast_enabled(device_type_, previous_enabled_);
    set_autocast_dtype(device_type_, previous_dtype_);
    set_autocast_cache_enabled(previous_cache_enabled_);
    if (table_given_) set_autocast_table(device_type_, previous_table_);
}

}  // namespace tinyamp::amp
