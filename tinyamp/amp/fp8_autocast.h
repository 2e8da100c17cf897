#pragma once
/// \file
/// amp::fp8_autocast: the FP8 region, as Transformer Engine's `te.fp8_autocast(enabled,
/// fp8_recipe)`. While one is alive on a thread, every nn::Linear called on that thread runs its
/// product through fp8_linear (ops/float8.h) with the region's recipe; every other op runs as
/// before (under amp::autocast's policy when one is open too). Functional ops (tinyamp::linear,
/// matmul) are not changed, as TE's region changes only te modules: a Linear keeps the delayed
/// recipe's amax histories, which a function call has nowhere to keep.
///
/// \code
///     amp::fp8_autocast fp8(true, amp::DelayedScaling{});   // HYBRID: E4M3 forward, E5M2 gradients
///     Tensor loss = cross_entropy((*model)(x), y);            // every Linear in FP8
///     loss.backward();                                        // f32 gradients for the f32 weights
/// \endcode
///
/// Regions nest: the innermost decides, and its end restores the one outside (or none).

#include "tinyamp/values/scaling_recipe.h"

namespace tinyamp::amp {

/// The FP8 region (see the file's comment). Not copyable; a local variable's scope is the region.
class fp8_autocast {
public:
    /// Opens a region: Linear layers run in FP8/MX with \p recipe when \p enabled, and as
    /// usual when not (an `enabled = false` region inside an FP8 one turns it off there).
    /// Error(value) for a recipe with a field out of range (validate()). [[nodiscard]], as
    /// autocast's: an unnamed `amp::fp8_autocast();` would end at its semicolon.
    [[nodiscard]] explicit fp8_autocast(bool enabled = true, ScalingRecipe recipe = DelayedScaling{});
    ~fp8_autocast();  ///< restores the region outside
    fp8_autocast(const fp8_autocast&) = delete;
    fp8_autocast& operator=(const fp8_autocast&) = delete;

private:
    bool previous_enabled_;
    ScalingRecipe previous_recipe_;
};

/// True inside an enabled fp8_autocast region on this thread.
bool is_fp8_autocast_enabled();
/// The recipe of the innermost region (DelayedScaling{} outside every region).
const ScalingRecipe& fp8_autocast_recipe();

}  // namespace tinyamp::amp
