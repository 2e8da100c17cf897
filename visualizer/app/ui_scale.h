#pragma once
// Lengths of the GUI written in pixels at UI scale 1 (the 15 px UI font), grown with the font that
// --ui-scale loads (platform.cpp), so that panels keep their proportions on a HiDPI screen.
#include <imgui.h>

namespace tinyamp::viz {

/// The UI scale: the UI font's size over its 15 px at scale 1.
inline float ui_scale() { return ImGui::GetFontSize() / 15.0f; }
/// `px` pixels at UI scale 1, at the current scale.
inline float ui_px(float px) { return px * ui_scale(); }

}  // namespace tinyamp::viz
