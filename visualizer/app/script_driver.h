#pragma once
// Uses the GUI as a person does, from a script: the mouse is moved by SDL (SDL_WarpMouseInWindow)
// and buttons, wheel notches and keys go through SDL's event queue, so every input takes the
// same road as a real one (SDL -> ImGui's SDL backend -> the panels). After each command the
// script can check what a person would see: which node the inspector names, where the timeline
// is, whether the view zoomed about the cursor or panned. `tinyamp-viz --script FILE` runs one
// headless; CTest runs tests/visualizer/scripts/*.viz (docs/visualizer.md lists the commands).
//
//   move-to-node linear        # the mouse on the first linear node
//   click
//   expect selected linear
//   remember
//   wheel 3
//   expect zoomed-in
//   expect node-under-mouse linear
#include <string>
#include <vector>

#include "visualizer/app/platform.h"
#include "visualizer/app/viz_app.h"

namespace tinyamp::viz {

class ScriptDriver {
public:
    /// Reads the script; throws Error(io) naming the line of an unknown command or bad argument.
    static ScriptDriver load(const std::string& path);

    /// Before a frame's events are polled: queues this frame's input.
    void before_frame(Platform& platform, const VizApp& app);
    /// After the frame was drawn: runs the checks that are due, printing "ok: ..." or "FAILED: ...".
    void after_frame(const VizApp& app);
    bool done() const { return next_ >= commands_.size(); }
    int failures() const { return failures_; }

private:
    struct Command {
        int line = 0;
        std::vector<std::string> words;
    };
    std::vector<Command> commands_;
    std::size_t next_ = 0;  // the command running now
    int frame_in_command_ = 0;
    int failures_ = 0;
    float mouse_x_ = 0, mouse_y_ = 0;
    Camera remembered_;
};

}  // namespace tinyamp::viz
