#pragma once
/// \file
/// One spelling of "was this key pressed" for every Dear ImGui the visualizer builds with.

#include <imgui.h>

namespace tinyamp::viz {

/// Dear ImGui 1.87 made the ImGuiKey_* values the keys themselves (IsKeyPressed(ImGuiKey_Home));
/// 1.86, Debian 12's, wants the backend's index of the key (GetKeyIndex), which 1.91 removed.
inline bool key_pressed(ImGuiKey key)
{
#if IMGUI_VERSION_NUM >= 18700
    return ImGui::IsKeyPressed(key);
#else
    return ImGui::IsKeyPressed(ImGui::GetKeyIndex(key));
#endif
}

}  // namespace tinyamp::viz
