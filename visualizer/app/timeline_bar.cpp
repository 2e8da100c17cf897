#include "visualizer/app/timeline_bar.h"
#include "visualizer/app/ui_scale.h"

#include <imgui.h>

#include <string>

#include "visualizer/app/colors.h"
#include "visualizer/app/key_pressed.h"
#include "visualizer/app/ui_targets.h"

namespace tinyamp::viz {
namespace {

// What the scrubber's label says about the current position.
std::string position_text(const Document& document)
{
    const Stepper& stepper = document.stepper();
    const auto event = stepper.current_event();
    std::string text = std::to_string(stepper.position()).append(" / ").append(std::to_string(stepper.event_count()));
    if (!event) return text.append("  (nothing shown)");
    const trace::Event& e = document.trace().events()[*event];
    return text.append("  ").append(trace::phase_name(e.phase)).append(": ").append(e.op);
}

// A strip with one tick per event, colored by the event's dtype, and the boundary between the
// forward and backward passes.
void event_strip(const Document& document, float width)
{
    const auto& events = document.trace().events();
    const float height = 8;
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImGui::Dummy({width, height});
    if (events.empty()) return;
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const float w = width / float(events.size());
    const trace::TraceGraph& graph = document.graph();
    for (std::size_t i = 0; i < events.size(); ++i) {
        const int node = graph.node_of_event(i);
        const trace::GraphNode* n = node >= 0 ? &graph.nodes[std::size_t(node)] : nullptr;
        const int alpha = i < document.stepper().position() ? 255 : 60;
        const ImU32 color = n && n->has_dtype ? dtype_fill(n->dtype, alpha) : IM_COL32(200, 200, 200, alpha);
        draw->AddRectFilled({p.x + w * float(i), p.y}, {p.x + w * float(i + 1) - (w > 3 ? 1.0f : 0.0f), p.y + height}, color);
        if (i > 0 && events[i].phase != events[i - 1].phase)
            draw->AddLine({p.x + w * float(i), p.y - 3}, {p.x + w * float(i), p.y + height + 3}, IM_COL32(255, 255, 255, 255), 2);
    }
}

}  // namespace

void draw_timeline(Document& document)
{
    Stepper& stepper = document.stepper();
    const bool keys = !ImGui::GetIO().WantTextInput;
    auto moved = [&]() { document.select(-1); };  // the inspector follows the timeline again

    if (ImGui::Button("|<")) { stepper.to_start(); moved(); }
    note_item("|<");
    ImGui::SameLine();
    if (ImGui::Button("< back") || (keys && key_pressed(ImGuiKey_LeftArrow))) { stepper.step_back(); moved(); }
    note_item("< back");
    ImGui::SameLine();
    if (ImGui::Button(stepper.playing() ? "pause" : "play ") || (keys && key_pressed(ImGuiKey_Space))) {
        stepper.playing() ? stepper.pause() : stepper.play();
        moved();
    }
    ImGui::SameLine();
    if (ImGui::Button("step >") || (keys && key_pressed(ImGuiKey_RightArrow))) { stepper.step_forward(); moved(); }
    note_item("step >");
    ImGui::SameLine();
    if (ImGui::Button(">|")) { stepper.to_end(); moved(); }
    note_item(">|");
    ImGui::SameLine();
    if (ImGui::Button("backward pass")) { stepper.to_backward_start(); moved(); }
    note_item("backward pass");
    ImGui::SameLine();
    float speed = float(stepper.speed());
    ImGui::SetNextItemWidth(ui_px(110));
    if (ImGui::SliderFloat("events/s", &speed, 0.5f, 30.0f, "%.1f", ImGuiSliderFlags_Logarithmic)) stepper.set_speed(speed);
    ImGui::SameLine();

    int position = int(stepper.position());
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x);
    if (ImGui::SliderInt("##scrub", &position, 0, int(stepper.event_count()), position_text(document).c_str())) {
        stepper.seek(std::size_t(position));
        moved();
    }
    event_strip(document, ImGui::GetContentRegionAvail().x);
}

}  // namespace tinyamp::viz
