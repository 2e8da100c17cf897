#include "training/modes.h"

#include <tinyamp/tinyamp.h>

#include "training/precision_region.h"

namespace tinyamp::train {

Mode parse_mode(const std::string& name)
{
    for (Mode m : all_modes())
        if (name == mode_name(m)) return m;
    for (Mode m : {Mode::fp8_current, Mode::fp8_delayed, Mode::mxfp8, Mode::mxfp4, Mode::nvfp4})
        if (name == mode_name(m)) return m;
    TINYAMP_FAIL(value, "unknown mode '", name, "': choose f32, bf16, f16-scaler, f16-no-scaler, fp8-current, fp8-delayed, mxfp8, mxfp4 or nvfp4");
}

const char* mode_name(Mode mode)
{
    switch (mode) {
    case Mode::f32: return "f32";
    case Mode::bf16: return "bf16";
    case Mode::f16_scaler: return "f16-scaler";
    case Mode::f16_no_scaler: return "f16-no-scaler";
    case Mode::fp8_current: return "fp8-current";
    case Mode::fp8_delayed: return "fp8-delayed";
    case Mode::mxfp8: return "mxfp8";
    case Mode::mxfp4: return "mxfp4";
    case Mode::nvfp4: return "nvfp4";
    }
    return "?";
}

std::vector<Mode> all_modes() { return {Mode::f32, Mode::bf16, Mode::f16_scaler, Mode::f16_no_scaler}; }

std::vector<Mode> fp8_modes() { return {Mode::fp8_current, Mode::fp8_delayed, Mode::mxfp8}; }

void enter_region(Mode mode, const std::shared_ptr<const amp::PolicyTable>& table, PrecisionRegion& region)
{
    switch (mode) {
    case Mode::f32: return;
    case Mode::fp8_current: region.fp8.emplace(true, amp::Float8CurrentScaling{}); return;
    case Mode::fp8_delayed: region.fp8.emplace(true, amp::DelayedScaling{.amax_history_len = 16}); return;
    case Mode::mxfp8: region.fp8.emplace(true, amp::MXBlockScaling::mxfp8()); return;
    case Mode::mxfp4: region.fp8.emplace(true, amp::MXBlockScaling::mxfp4()); return;
    case Mode::nvfp4: region.fp8.emplace(true, amp::NVFP4BlockScaling{}); return;
    default: region.autocast.emplace("cpu", amp::AutocastOptions{.dtype = mode == Mode::bf16 ? bf16 : f16, .table = table});
    }
}

}  // namespace tinyamp::train
