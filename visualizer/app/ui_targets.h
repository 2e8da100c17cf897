#pragma once
// Where the buttons were drawn this frame, by label, so a script (app/script_driver.h) can click
// them as a person would: it moves the mouse there and presses, through SDL's event queue.
#include <optional>
#include <string>

#include <imgui.h>

namespace tinyamp::viz {

/// Remembers the rectangle of ImGui's last item (call right after the button) under `label`.
void note_item(const std::string& label);
/// Remembers a drawn (not ImGui item) target, such as the legend's header, under `label`.
void note_rect(const std::string& label, ImVec2 min, ImVec2 max);
/// The centre of the item noted as `label` in the last frame that drew it, or nullopt.
std::optional<ImVec2> item_center(const std::string& label);

}  // namespace tinyamp::viz
