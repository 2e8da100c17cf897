#pragma once
// The region each training mode runs its forward pass in: nothing (f32), autocast to bf16 or f16
// (the f16 modes differ only in the GradScaler, which is outside the region), or an FP8/FP4
// region that puts every nn::Linear through fp8_linear. tinyamp-train's digits and GPT loops
// share it, so a mode means the same thing for both models.

#include <memory>
#include <optional>

#include <tinyamp/tinyamp.h>

#include "training/modes.h"

namespace tinyamp::train {

/// Holds the guard of the mode's region while it lives.
struct PrecisionRegion {
    std::optional<amp::autocast> autocast;
    std::optional<amp::fp8_autocast> fp8;
};

/// Enters \p mode's region in \p region (left empty in f32 mode); \p table is the autocast
/// policy (PyTorch's CPU lists, or the CUDA lists emulated).
void enter_region(Mode mode, const std::shared_ptr<const amp::PolicyTable>& table, PrecisionRegion& region);

}  // namespace tinyamp::train
