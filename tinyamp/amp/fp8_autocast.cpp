#include "tinyamp/amp/fp8_autocast.h"

namespace tinyamp::amp {
namespace {

// The region's state, per thread as autocast's (a new thread starts outside every region).
thread_local bool fp8_enabled = false;
thread_local ScalingRecipe fp8_recipe = DelayedScaling{};

}  // namespace

fp8_autocast::fp8_autocast(bool enabled, ScalingRecipe recipe) : previous_enabled_(fp8_enabled), previous_recipe_(fp8_recipe)
{
    validate(recipe);
    fp8_enabled = enabled;
    fp8_recipe = std::move(recipe);
}

fp8_autocast::~fp8_autocast()
{
    fp8_enabled = previous_enabled_;
    fp8_recipe = std::move(previous_recipe_);
}

bool is_fp8_autocast_enabled() { return fp8_enabled; }

const ScalingRecipe& fp8_autocast_recipe() { return fp8_recipe; }

}  // namespace tinyamp::amp
