#include "visualizer/app/imgui_setup.h"

#include <imgui.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace tinyamp::viz {
namespace {

// DejaVu Sans has the arrows and subscripts the labels use ("f32→bf16", "log₂"); ImGui's built-in
// font has only ASCII. The file: $TINYAMP_VIZ_FONT if set, else where CMake found it at configure
// time (TINYAMP_VIZ_FONT_PATH, the cache variable TINYAMP_VIZ_FONT); without one, the built-in font.
std::string font_path()
{
    if (const char* from_environment = std::getenv("TINYAMP_VIZ_FONT"); from_environment && *from_environment) return from_environment;
#ifdef TINYAMP_VIZ_FONT_PATH
    return TINYAMP_VIZ_FONT_PATH;
#else
    return {};
#endif
}

ImFont* load_font(float size, const ImWchar* ranges)
{
    ImGuiIO& io = ImGui::GetIO();
    const std::string path = font_path();
    if (!path.empty() && std::filesystem::exists(path)) {
        if (ImFont* font = io.Fonts->AddFontFromFileTTF(path.c_str(), size, nullptr, ranges)) return font;
    }
    static bool warned = false;  // two fonts are loaded: say it once
    if (!warned) {
        warned = true;
        std::fprintf(stderr, "tinyamp-viz: DejaVuSans.ttf %s; using ImGui's built-in font, so arrows such as f32→bf16 show as '?'. "
                             "Install DejaVu Sans (Debian: fonts-dejavu-core) and reconfigure, or set TINYAMP_VIZ_FONT=/path/to/DejaVuSans.ttf\n",
                     path.empty() ? "was not found when the build was configured" : ("not found at " + path).c_str());
    }
    ImFontConfig config;
    config.SizePixels = size;
    return io.Fonts->AddFontDefault(&config);
}

}  // namespace

ImGuiFonts start_imgui(float ui_scale)
{
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;  // no imgui.ini: every start looks the same
    ImGui::StyleColorsDark();
    // Windows opaque, in the color the dark style's 94 % window background gave over the old clear
    // color: the platform clears the screen with it (VizApp::backdrop), and the app's full-window
    // window draws none of its own.
    ImGui::GetStyle().Colors[ImGuiCol_WindowBg] = ImVec4(0.0612f, 0.0612f, 0.0618f, 1.0f);
    ImGui::GetStyle().WindowRounding = 0;
    ImGui::GetStyle().ScaleAllSizes(ui_scale);  // padding, spacing, scrollbars, ...

    static ImVector<ImWchar> ranges;  // must outlive the font atlas build
    if (ranges.empty()) {
        ImFontGlyphRangesBuilder builder;
        builder.AddRanges(io.Fonts->GetGlyphRangesDefault());
        builder.AddText("→←↑↓≤≥×·…–—₂∞²⁻⁰¹³⁴⁵⁶⁷⁸⁹▶■◀▾▸");
        builder.BuildRanges(&ranges);
    }
    // Rasterized at the scaled size: sharp text, where ImGui's FontGlobalScale would stretch pixels.
    ImGuiFonts fonts;
    fonts.ui = load_font(15.0f * ui_scale, ranges.Data);
    fonts.graph = load_font(28.0f * ui_scale, ranges.Data);
    io.FontDefault = fonts.ui;
    return fonts;
}

}  // namespace tinyamp::viz
