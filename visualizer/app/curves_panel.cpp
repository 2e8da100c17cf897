#include "visualizer/app/curves_panel.h"
#include "visualizer/app/ui_scale.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>

namespace tinyamp::viz {
namespace {

struct Plot {
    ImVec2 min, max;
    double x_lo, x_hi, y_lo, y_hi;
    ImVec2 at(double x, double y) const
    {
        const double fx = x_hi > x_lo ? (x - x_lo) / (x_hi - x_lo) : 0.5;
        const double fy = y_hi > y_lo ? (y - y_lo) / (y_hi - y_lo) : 0.5;
        return {min.x + float(fx) * (max.x - min.x), max.y - float(fy) * (max.y - min.y)};
    }
};

// A frame with a title and the y range written at its corners; returns the inner plot area.
Plot frame(const char* title, double y_lo, double y_hi, const char* y_format, double steps, float height)
{
    const float width = ImGui::GetContentRegionAvail().x;
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImGui::Dummy({width, height});
    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->AddRectFilled(p, {p.x + width, p.y + height}, IM_COL32(25, 25, 30, 255));
    draw->AddText({p.x + 6, p.y + 2}, IM_COL32(220, 220, 220, 255), title);
    char text[48];
    std::snprintf(text, sizeof text, y_format, y_hi);
    draw->AddText({p.x + width - ImGui::CalcTextSize(text).x - 4, p.y + 2}, IM_COL32(150, 150, 150, 255), text);
    std::snprintf(text, sizeof text, y_format, y_lo);
    draw->AddText({p.x + width - ImGui::CalcTextSize(text).x - 4, p.y + height - ui_px(16)}, IM_COL32(150, 150, 150, 255), text);
    return {{p.x + ui_px(6), p.y + ui_px(20)}, {p.x + width - ui_px(6), p.y + height - ui_px(18)}, 1, std::max(steps, 2.0), y_lo, y_hi};
}

void polyline(const Plot& plot, const std::vector<StepRecord>& history, const std::function<double(const StepRecord&)>& y, ImU32 color,
              bool stairs)
{
    ImDrawList* draw = ImGui::GetWindowDrawList();
    bool has_previous = false;
    ImVec2 previous;
    for (const StepRecord& r : history) {
        const double v = y(r);
        if (!std::isfinite(v)) {
            has_previous = false;
            continue;
        }
        const ImVec2 point = plot.at(double(r.step), v);
        if (has_previous) {
            if (stairs) {
                draw->AddLine(previous, {point.x, previous.y}, color, 2);
                draw->AddLine({point.x, previous.y}, point, color, 2);
            } else {
                draw->AddLine(previous, point, color, 2);
            }
        }
        if (history.size() < 60) draw->AddCircleFilled(point, 2.5f, color);
        previous = point;
        has_previous = true;
    }
}

}  // namespace

void draw_curves(const std::vector<StepRecord>& history, float height_each)
{
    if (history.empty()) {
        ImGui::TextDisabled("no steps yet");
        return;
    }
    const double steps = double(history.back().step);

    double loss_hi = 0;
    for (const StepRecord& r : history)
        if (std::isfinite(r.loss)) loss_hi = std::max(loss_hi, r.loss);
    const Plot loss = frame("loss", 0, loss_hi > 0 ? loss_hi * 1.05 : 1, "%.2f", steps, height_each);
    polyline(loss, history, [](const StepRecord& r) { return r.loss; }, IM_COL32(120, 200, 255, 255), false);

    double lo = 1e300, hi = -1e300;
    for (const StepRecord& r : history) {
        lo = std::min(lo, std::log2(r.scale));
        hi = std::max(hi, std::log2(r.scale));
    }
    const Plot scale = frame("loss scale (log2)", std::floor(lo) - 1, std::ceil(hi) + 1, "2^%.0f", steps, height_each);
    polyline(scale, history, [](const StepRecord& r) { return std::log2(r.scale); }, IM_COL32(255, 200, 80, 255), true);
    ImDrawList* draw = ImGui::GetWindowDrawList();
    std::int64_t skipped = 0;
    for (const StepRecord& r : history) {
        if (!r.skipped) continue;
        ++skipped;
        const ImVec2 c = scale.at(double(r.step), std::log2(r.scale));
        draw->AddLine({c.x - 4, c.y - 4}, {c.x + 4, c.y + 4}, IM_COL32(255, 60, 60, 255), 2);
        draw->AddLine({c.x - 4, c.y + 4}, {c.x + 4, c.y - 4}, IM_COL32(255, 60, 60, 255), 2);
    }
    ImGui::TextWrapped("step %lld   loss %.4f   scale %g   skipped %lld", static_cast<long long>(history.back().step), history.back().loss,
                       history.back().scale, static_cast<long long>(skipped));  // wrapped: the panel follows the window
}

}  // namespace tinyamp::viz
