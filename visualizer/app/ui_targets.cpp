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

void note_item(const std::string& label)
{
    const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
    centers()[label] = {(a.x + b.x) / 2, (a.y + b.y) / 2};
}

std::optional<ImVec2> item_center(const std::string& label)
{
    const auto it = centers().find(label);
    if (it == centers().end()) return std::nullopt;
    return it->second;
}

}  // namespace tinyamp::viz
