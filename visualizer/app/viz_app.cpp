#include "visualizer/app/viz_app.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <charconv>
#include <exception>
#include <utility>

#include "tinyamp/support/atomic_file.h"
#include "visualizer/app/colors.h"
#include "visualizer/app/controls_panel.h"
#include "visualizer/app/curves_panel.h"
#include "visualizer/app/inspector_panel.h"
#include "visualizer/app/timeline_bar.h"
#include "visualizer/app/ui_scale.h"
#include "visualizer/model/panel_widths.h"

namespace tinyamp::viz {
namespace {

void place_timeline(Stepper& stepper, const std::string& position)
{
    if (position == "end" || position.empty()) return stepper.to_end();
    if (position == "start") return stepper.to_start();
    if (position == "backward") return stepper.to_backward_start();
    std::size_t n = 0;
    const auto [end, ec] = std::from_chars(position.data(), position.data() + position.size(), n);
    TINYAMP_CHECK(ec == std::errc() && end == position.data() + position.size(), value, "--position '", position,
                  "' is not understood: use end, start, backward or a number of events");
    stepper.seek(n);
}

}  // namespace

VizApp::VizApp(const AppOptions& options, ImFont* graph_font) : graph_font_(graph_font), tab_(options.tab)
{
    TINYAMP_CHECK(tab_ == "scenario" || tab_ == "policy" || tab_ == "file", value, "--tab '", tab_, "' is not a tab: use scenario, policy or file");
    Opening opening;  // a trace file opens at its end, nothing selected
    if (!options.trace_path.empty()) {
        load_trace(options.trace_path);
        tab_ = "file";
    } else {
        scenario_ = std::make_unique<Scenario>(Scenario::preset(options.scenario));
        opening = Scenario::opening(options.scenario);
        if (options.steps > 0) scenario_->step(options.steps);
        show(scenario_->trace(), scenario_->summary(), false);
        // A recorded scenario is a trace file to the app: no controls, curves or steps.
        if (!scenario_->options().recorded.empty()) scenario_.reset();
    }
    // Each option given replaces its part of the scenario's opening.
    place_timeline(document_->stepper(), options.position.empty() ? opening.position : options.position);
    const std::string select = options.select.empty() ? opening.select : options.select == "none" ? "" : options.select;
    if (!select.empty()) {
        const int node = document_->find_or_reveal(select);
        TINYAMP_CHECK(node >= 0, value, options.select.empty() ? "the scenario's opening selects '" : "--select '", select,
                      "', which names no node: use a node name such as e12, an op such as linear, backward:OP, a tensor's name such as 0.weight, "
                      "module:PATH, or none");
        document_->select(node);
    }
    if (options.zoom) {
        TINYAMP_CHECK(*options.zoom > 0, value, "--zoom ", *options.zoom, " is not a positive factor (1 = the first view's zoom, 4 = four times closer)");
        camera_.zoom_after_fit = float(*options.zoom);
        camera_.center_first_view = true;
    }
    camera_.record_drawn = options.record_drawn;
    path_input_ = options.trace_path;
}

void VizApp::show(trace::Trace trace, const std::string& title, bool keep_position)
{
    // The next step of the same scenario keeps the modules folded as the student left them.
    const bool same_run = keep_position && document_;
    auto next = same_run ? std::make_unique<Document>(std::move(trace), title, document_->collapsed()) : std::make_unique<Document>(std::move(trace), title);
    if (same_run && document_->stepper().event_count() == next->stepper().event_count()) {
        next->stepper().seek(document_->stepper().position());
        const int selected = document_->selected();
        if (selected >= 0) next->select(next->graph().find(document_->graph().nodes[std::size_t(selected)].name));
    } else {
        camera_.fit_pending = true;
    }
    document_ = std::move(next);
}

void VizApp::set_message(std::string text, bool error)
{
    message_ = std::move(text);
    message_is_error_ = error;
}

void VizApp::load_trace(const std::string& path)
{
    trace::Trace trace = trace::Trace::from_json(io::read_file(path));
    show(std::move(trace), path, false);
    scenario_.reset();
    running_ = false;
    set_message("opened " + path, false);
}

bool VizApp::open_trace(const std::string& path)
{
    try {
        load_trace(path);
        return true;
    } catch (const std::exception& e) {
        set_message(e.what(), true);
        return false;
    }
}

void VizApp::restart(const ScenarioOptions& options)
{
    try {
        scenario_->reset(options);  // keeps the old scenario when the options are refused
        show(scenario_->trace(), scenario_->summary(), false);
        set_message("restarted: " + scenario_->summary(), false);
    } catch (const std::exception& e) {
        set_message(e.what(), true);
    }
}

void VizApp::train(std::int64_t steps)
{
    try {
        scenario_->step(steps);
        show(scenario_->trace(), scenario_->summary(), true);
    } catch (const std::exception& e) {
        running_ = false;
        set_message(e.what(), true);
    }
}

StepContext VizApp::step_context() const
{
    if (!scenario_ || scenario_->history().empty()) return {};  // a trace file: what its values show, without a cause
    return {.loss_scaled = scenario_->options().scaler, .step_skipped = scenario_->history().back().skipped};
}

void VizApp::draw_file_tab()
{
    ImGui::TextWrapped("Open a trace JSON written by any tinyamp program (Trace::to_json), or drop the file on the window.");
    ImGui::SetNextItemWidth(-1);
    const bool enter = ImGui::InputTextWithHint("##path", "path/to/trace.json", &path_input_, ImGuiInputTextFlags_EnterReturnsTrue);
    if (ImGui::Button("open") || enter) open_trace(path_input_);
    ImGui::SameLine();
    if (ImGui::Button("save this trace")) {
        try {
            io::write_file_atomically(path_input_, document_->trace().to_json());
            set_message("saved " + path_input_, false);
        } catch (const std::exception& e) {
            set_message(e.what(), true);
        }
    }
    ImGui::SameLine();
    if (ImGui::Button("export DOT")) {
        try {
            const std::string dot_path = path_input_ + ".dot";
            // As shown: the modules folded and framed as in the graph view.
            io::write_file_atomically(dot_path, trace::to_dot(document_->trace(), view_options(document_->collapsed())));
            set_message("wrote " + dot_path + " (dot -Tsvg draws it; modules folded as shown)", false);
        } catch (const std::exception& e) {
            set_message(e.what(), true);
        }
    }
    if (!scenario_ && ImGui::Button("back to the live scenario")) {
        scenario_ = std::make_unique<Scenario>(Scenario::preset(Scenario::names().front()));
        show(scenario_->trace(), scenario_->summary(), false);
    }
}

void VizApp::draw_left_panel(float width, float height)
{
    ImGui::BeginChild("left", {width, height}, true);
    if (ImGui::BeginTabBar("left_tabs")) {
        auto tab = [&](const char* label, const char* key) {
            const ImGuiTabItemFlags flags = tab_pending_ && tab_ == key ? ImGuiTabItemFlags_SetSelected : 0;
            return ImGui::BeginTabItem(label, nullptr, flags);
        };
        if (tab("Scenario", "scenario")) {
            if (scenario_) {
                ScenarioOptions edited = scenario_->options();
                TrainingActions actions;
                if (draw_scenario_controls(edited, running_, actions)) restart(edited);
                if (actions.restart) restart(scenario_->options());
                if (actions.toggle_run) running_ = !running_;
                if (actions.steps > 0) train(actions.steps);
            } else {
                ImGui::TextWrapped("Showing a trace file: its steps cannot be re-run. Use the File tab to go back to a live scenario.");
            }
            ImGui::EndTabItem();
        }
        if (tab("Policy table", "policy")) {
            if (scenario_) {
                ScenarioOptions edited = scenario_->options();
                if (draw_policy_table(edited, document_->trace())) restart(edited);
            } else {
                ImGui::TextWrapped("The trace file records which rule each op followed (see the inspector).");
            }
            ImGui::EndTabItem();
        }
        if (tab("File", "file")) {
            draw_file_tab();
            ImGui::EndTabItem();
        }
        ImGui::EndTabBar();
    }
    tab_pending_ = false;
    if (scenario_) {
        ImGui::Separator();
        draw_curves(scenario_->history(), ui_px(125));
    }
    ImGui::EndChild();
}

void VizApp::frame(double seconds, float width, float height)
{
    if (running_ && scenario_) train(1);
    document_->stepper().advance(seconds);

    ImGui::SetNextWindowPos({0, 0});
    ImGui::SetNextWindowSize({width, height});
    // No background of its own: the platform clears the screen to it (backdrop()).
    ImGui::Begin("tinyamp-viz", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                                             ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_NoBackground);
    ImGui::TextUnformatted(document_->title().c_str());
    if (!message_.empty()) {
        ImGui::SameLine();
        ImGui::TextColored(message_is_error_ ? ImVec4(1, 0.4f, 0.4f, 1) : ImVec4(0.6f, 0.9f, 0.6f, 1), "   %s", message_.c_str());
    }
    draw_timeline(*document_);

    const float body = ImGui::GetContentRegionAvail().y;
    const PanelWidths panels = panel_widths(width, ui_scale());
    draw_left_panel(panels.left, body);
    ImGui::SameLine();
    const float graph_width = ImGui::GetContentRegionAvail().x - panels.right - ImGui::GetStyle().ItemSpacing.x;
    ImGui::BeginChild("graph", {graph_width, body}, false, ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
    draw_graph_view(*document_, camera_, graph_font_);
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("inspector", {panels.right, body}, true);
    draw_inspector(*document_, step_context());
    ImGui::EndChild();
    ImGui::End();
}

Backdrop VizApp::backdrop() const
{
    Backdrop backdrop;
    backdrop.background = ImGui::GetColorU32(ImGuiCol_WindowBg);
    backdrop.rect_color = hex_color(colors::kCanvas);
    backdrop.rect_min_x = camera_.canvas_origin.x;
    backdrop.rect_min_y = camera_.canvas_origin.y;
    backdrop.rect_max_x = camera_.canvas_origin.x + camera_.canvas_size.x;
    backdrop.rect_max_y = camera_.canvas_origin.y + camera_.canvas_size.y;
    return backdrop;
}

std::optional<ImVec2> VizApp::node_center(const std::string& name) const
{
    const int node = document_->find_node(name);
    if (node < 0) return std::nullopt;
    const Vec2 c = camera_.view.to_canvas(document_->layout().nodes[std::size_t(node)].center);
    return ImVec2(camera_.canvas_origin.x + c.x, camera_.canvas_origin.y + c.y);
}

}  // namespace tinyamp::viz
