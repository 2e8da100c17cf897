#include "tinyamp/amp/autocast_state.h"

#include "tinyamp/support/error.h"

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

ThreadState& thread_state()
{
    thread_local ThreadState s;
    return s;
}

}  // namespace

bool is_autocast_enabled(DeviceType device_type) { return thread_state().of(device_type).enabled; }
void set_autocast_enabled(DeviceType device_type, bool enabled) { thread_state().of(device_type).enabled = enabled; }
DType get_autocast_dtype(DeviceType device_type) { return thread_state().of(device_type).dtype; }
void set_autocast_dtype(DeviceType device_type, DType dtype) { thread_state().of(device_type).dtype = dtype; }
bool is_autocast_cache_enabled() { return thread_state().cache_enabled; }
void set_autocast_cache_enabled(bool enabled) { thread_state().cache_enabled = enabled; }
int autocast_increment_nesting() { return ++thread_state().nesting; }

int autocast_decrement_nesting()
{
    ThreadState& s = thread_state();
    TINYAMP_CHECK(s.nesting > 0, state, "autocast nesting went below zero: an autocast region ended that never began");
    return --s.nesting;
}

const PolicyTable& get_autocast_table(DeviceType device_type)
{
    const auto& table = thread_state().of(device_type).table;
    return table ? *table : PolicyTable::builtin(device_type);
}

void set_autocast_table(DeviceType device_type, std::shared_ptr<const PolicyTable> table) { thread_state().of(device_type).table = std::move(table); }
std::shared_ptr<const PolicyTable> get_autocast_table_override(DeviceType device_type) { return thread_state().of(device_type).table; }

DeviceType parse_autocast_device_type(std::string_view device_type)
{
    if (device_type == "cpu") return DeviceType::cpu;
    if (device_type == "cuda") return DeviceType::cuda;
    TINYAMP_FAIL(device, "User specified an unsupported autocast device_type '", device_type, "' (tinyamp has \"cpu\" and \"cuda\")");
}

bool autocast_layer_active()
{
    const ThreadState& s = thread_state();
    return !s.excluded && (s.cpu.enabled || s.cuda.enabled);
}

ExcludeAutocast::ExcludeAutocast() : previous_(thread_state().excluded) { thread_state().excluded = true; }
ExcludeAutocast::~ExcludeAutocast() { thread_state().excluded = previous_; }

DisableAutocast::DisableAutocast() : previous_cpu_(thread_state().cpu.enabled), previous_cuda_(thread_state().cuda.enabled)
{
    thread_state().cpu.enabled = false;
    thread_state().cuda.enabled = false;
}

DisableAutocast::~DisableAutocast()
{
    thread_state().cpu.enabled = previous_cpu_;
    thread_state().cuda.enabled = previous_cuda_;
}

}  // namespace tinyamp::amp
