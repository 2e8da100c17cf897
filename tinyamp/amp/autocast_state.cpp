#include "tinyamp/amp/autocast_state.h"

#include "tinyamp/core/error.h"

namespace tinyamp::amp {
namespace {

struct DeviceState {
    bool enabled = false;
    DType dtype;
    std::shared_ptr<const PolicyTable> table;  // null: the built-in table
};

struct ThreadState {
    DeviceState cpu{false, DType::bf16, nullptr};
    DeviceState cuda{false, DType::f16, nullptr};
    bool cache_enabled = true;
    int nesting = 0;
    bool excluded = false;
    DeviceState& of(DeviceType t) { return t == DeviceType::cuda ? cuda : cpu; }
};

ThreadState& state()
{
    thread_local ThreadState s;
    return s;
}

}  // namespace

bool is_autocast_enabled(DeviceType device_type) { return state().of(device_type).enabled; }
void set_autocast_enabled(DeviceType device_type, bool enabled) { state().of(device_type).enabled = enabled; }
DType get_autocast_dtype(DeviceType device_type) { return state().of(device_type).dtype; }
void set_autocast_dtype(DeviceType device_type, DType dtype) { state().of(device_type).dtype = dtype; }
bool is_autocast_cache_enabled() { return state().cache_enabled; }
void set_autocast_cache_enabled(bool enabled) { state().cache_enabled = enabled; }
int autocast_increment_nesting() { return ++state().nesting; }

int autocast_decrement_nesting()
{
    ThreadState& s = state();
    TINYAMP_CHECK(s.nesting > 0, state, "autocast nesting went below zero: an autocast region ended that never began");
    return --s.nesting;
}

const PolicyTable& get_autocast_table(DeviceType device_type)
{
    const auto& table = state().of(device_type).table;
    return table ? *table : PolicyTable::builtin(device_type);
}

void set_autocast_table(DeviceType device_type, std::shared_ptr<const PolicyTable> table) { state().of(device_type).table = std::move(table); }
std::shared_ptr<const PolicyTable> get_autocast_table_override(DeviceType device_type) { return state().of(device_type).table; }

DeviceType parse_autocast_device_type(std::string_view device_type)
{
    if (device_type == "cpu") return DeviceType::cpu;
    if (device_type == "cuda") return DeviceType::cuda;
    TINYAMP_FAIL(device, "User specified an unsupported autocast device_type '", device_type, "' (tinyamp has \"cpu\" and \"cuda\")");
}

bool autocast_layer_active()
{
    const ThreadState& s = state();
    return !s.excluded && (s.cpu.enabled || s.cuda.enabled);
}

ExcludeAutocast::ExcludeAutocast() : previous_(state().excluded) { state().excluded = true; }
ExcludeAutocast::~ExcludeAutocast() { state().excluded = previous_; }

DisableAutocast::DisableAutocast() : previous_cpu_(state().cpu.enabled), previous_cuda_(state().cuda.enabled)
{
    state().cpu.enabled = false;
    state().cuda.enabled = false;
}

DisableAutocast::~DisableAutocast()
{
    state().cpu.enabled = previous_cpu_;
    state().cuda.enabled = previous_cuda_;
}

}  // namespace tinyamp::amp
