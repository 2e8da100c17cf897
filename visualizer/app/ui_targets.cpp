#include "visualizer/app/ui_targets.h"

#include <map>

namespace tinyamp::viz {
namespace {

std::map<std::string, ImVec2>& centers()
{
    static std::map<std::string, ImVec2> noted;
    return noted;
}

}  // namespace

void note_item(const std::string& label) { note_rect(label, ImGui::GetItemRectMin(), ImGui::GetItemRectMax()); }

void note_rect(const std::string& label, ImVec2 min, ImVec2 max) { centers()[label] = {(min.x + max.x) / 2, (min.y + max.y) / 2}; }

std::optional<ImVec2> item_center(const std::string& label)
{
    const auto it = centers().find(label);
    if (it == centers().end()) return std::nullopt;
    return it->second;
}

}  // namespace tinyamp::viz
