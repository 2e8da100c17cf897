#pragma once
// Dear ImGui's context as both platforms (platform.cpp, ../web/platform_web.cpp) start it: the
// style, no imgui.ini, and the two fonts, DejaVu Sans with the arrows and subscripts the labels use.
struct ImFont;

namespace tinyamp::viz {

struct ImGuiFonts {
    ImFont* ui = nullptr;     ///< the panels' text
    ImFont* graph = nullptr;  ///< a large font, scaled down for node labels
};

/// Creates ImGui's context, styles it and loads the fonts at `ui_scale` times their size (the ui
/// font becomes ImGui's default).
ImGuiFonts start_imgui(float ui_scale);

}  // namespace tinyamp::viz
