#pragma once
// The visualizer's window: the timeline on top; the scenario's knobs, the policy table, trace
// files and the training curves on the left; the graph in the middle; the inspector on the right.
// It shows either a live scenario (trained a step at a time) or a trace JSON file.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "visualizer/app/app_options.h"
#include "visualizer/app/backdrop.h"
#include "visualizer/app/document.h"
#include "visualizer/app/graph_view.h"
#include "visualizer/model/inspector.h"
#include "visualizer/scenarios/scenario.h"

struct ImFont;

namespace tinyamp::viz {

class VizApp {
public:
    /// Throws Error naming the bad option (unknown scenario, unreadable trace, no such node).
    VizApp(const AppOptions& options, ImFont* graph_font);

    /// Draws one frame; `seconds` is the time since the last one (the timeline's play uses it).
    void frame(double seconds, float width, float height);
    /// Shows a trace JSON file; on failure keeps what is shown and displays the error.
    bool open_trace(const std::string& path);

    const Document& document() const { return *document_; }
    const GraphCamera& camera() const { return camera_; }  ///< where the graph view looks (scripts read it)
    /// The centre of node `name` (e12, an op such as linear, backward:OP) in window pixels, as
    /// last drawn; nullopt when there is no such node. Scripts and the browser test click there.
    std::optional<ImVec2> node_center(const std::string& name) const;
    /// What the platform paints under this frame's ImGui windows (Platform::render).
    Backdrop backdrop() const;
    const std::string& message() const { return message_; }

private:
    void load_trace(const std::string& path);  // throws what reading and laying out throw
    void show(trace::Trace trace, const std::string& title, bool keep_position);
    void restart(const ScenarioOptions& options);
    void train(std::int64_t steps);
    void set_message(std::string text, bool error);
    void draw_left_panel(float width, float height);
    void draw_file_tab();
    StepContext step_context() const;  // what the scenario's GradScaler did in the step shown

    std::unique_ptr<Scenario> scenario_;  // null while a trace file is shown
    std::unique_ptr<Document> document_;
    GraphCamera camera_;
    ImFont* graph_font_;
    std::string tab_;
    bool tab_pending_ = true;  // select tab_ once, at the first frame
    bool running_ = false;
    std::string path_input_;
    std::string message_;
    bool message_is_error_ = false;
};

}  // namespace tinyamp::viz
