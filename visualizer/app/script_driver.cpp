#include "visualizer/app/script_driver.h"

#include <SDL.h>

#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "visualizer/app/ui_targets.h"

namespace tinyamp::viz {
namespace {

// How many frames each command takes: inputs need a frame to arrive and one to be seen.
int frames_of(const std::string& command)
{
    if (command == "drag") return 7;        // press, 5 moves, release
    if (command == "frames") return -1;     // its argument
    if (command == "expect" || command == "remember") return 0;  // checked after the last frame
    if (command == "click" || command == "click-button") return 3;  // move, press, the release seen (a button acts on it)
    return 2;
}

const std::map<std::string, int>& arguments()
{
    static const std::map<std::string, int> count{
        {"frames", 1}, {"move", 2}, {"move-to-node", 1}, {"move-to-module-title", 1}, {"click", 0}, {"drag", 2}, {"wheel", 1},
        {"key", 1},    {"click-button", -1}, {"remember", 0}, {"expect", -1},
    };
    return count;
}

void push_button(Uint8 button, bool down)
{
    SDL_Event e{};
    e.type = down ? SDL_MOUSEBUTTONDOWN : SDL_MOUSEBUTTONUP;
    e.button.button = button;
    e.button.state = down ? SDL_PRESSED : SDL_RELEASED;
    SDL_PushEvent(&e);
}

void push_key(SDL_Scancode code, bool down)
{
    SDL_Event e{};
    e.type = down ? SDL_KEYDOWN : SDL_KEYUP;
    e.key.keysym.scancode = code;
    e.key.keysym.sym = SDL_GetKeyFromScancode(code);
    e.key.state = down ? SDL_PRESSED : SDL_RELEASED;
    SDL_PushEvent(&e);
}

// `notches` wheel notches, up (> 0) or down, one event each.
void push_wheel(int notches)
{
    for (int i = 0; i < std::abs(notches); ++i) {
        SDL_Event e{};
        e.type = SDL_MOUSEWHEEL;
        e.wheel.y = notches > 0 ? 1 : -1;
#if SDL_VERSION_ATLEAST(2, 0, 18)
        e.wheel.preciseY = float(e.wheel.y);  // what Dear ImGui 1.89.3's SDL2 backend and later read
#endif
        SDL_PushEvent(&e);
    }
}

// The command `key NAME` (script line `line`) at its frame `frame`: pressed on the first, released
// on the second.
void push_key_command(const std::string& name, int line, int frame)
{
    static const std::map<std::string, SDL_Scancode> keys{
        {"right", SDL_SCANCODE_RIGHT}, {"left", SDL_SCANCODE_LEFT}, {"home", SDL_SCANCODE_HOME}, {"space", SDL_SCANCODE_SPACE},
        {"f", SDL_SCANCODE_F},         {"c", SDL_SCANCODE_C},       {"e", SDL_SCANCODE_E}};
    const auto key = keys.find(name);
    TINYAMP_CHECK(key != keys.end(), value, "script line ", line, ": key '", name, "' is not one of right, left, home, space, f, c, e");
    if (frame == 0) {
        push_key(key->second, true);
        if (name.size() == 1) {  // a letter is also typed text (ImGui 1.86 names few letter keys)
            SDL_Event e{};
            e.type = SDL_TEXTINPUT;
            e.text.text[0] = name[0];
            SDL_PushEvent(&e);
        }
    }
    if (frame == 1) push_key(key->second, false);
}

// The centre of node `name` (e12, an op such as linear, backward:OP) in window pixels.
ImVec2 node_center(const VizApp& app, const std::string& name, int line)
{
    const std::optional<ImVec2> center = app.node_center(name);
    TINYAMP_CHECK(center.has_value(), value, "script line ", line, ": no node '", name, "' (use e12, an op such as linear, or backward:OP)");
    return *center;
}

// node_center(), for the mouse to go to: a node outside the canvas cannot be pointed at.
ImVec2 visible_node_center(const VizApp& app, const std::string& name, int line)
{
    const ImVec2 p = node_center(app, name, line);
    const GraphCamera& camera = app.camera();
    const Vec2 c = {p.x - camera.canvas_origin.x, p.y - camera.canvas_origin.y};
    TINYAMP_CHECK(c.x >= 0 && c.y >= 0 && c.x < camera.canvas_size.x && c.y < camera.canvas_size.y, value, "script line ", line, ": node '", name,
                  "' is outside the canvas (at ", c.x, ", ", c.y, "): move the view first (drag, wheel, key f)");
    return p;
}

// A point on the title of unfolded module `path`'s forward frame, in window pixels: where a
// click folds it (graph_view.cpp draws the title at the frame's top-left).
ImVec2 module_title_point(const VizApp& app, const std::string& path, int line)
{
    for (const ClusterBox& cluster : app.document().layout().clusters) {
        if (cluster.module != path || cluster.name.back() != 'f') continue;
        const GraphCamera& camera = app.camera();
        const Vec2 c = camera.view.to_canvas({cluster.min.x, cluster.min.y});
        return {camera.canvas_origin.x + c.x + 10, camera.canvas_origin.y + c.y + 7 * camera.view.zoom + 2};
    }
    TINYAMP_FAIL(value, "script line ", line, ": module '", path, "' has no frame (it is folded, or no event ran in it)");
}

std::string rest_of(const std::vector<std::string>& words, std::size_t from)
{
    std::string text;
    for (std::size_t i = from; i < words.size(); ++i) text += (i > from ? " " : "") + words[i];
    return text;
}

}  // namespace

ScriptDriver ScriptDriver::load(const std::string& path)
{
    std::ifstream in(path);
    TINYAMP_CHECK(in.good(), io, "cannot open the script '", path, "'");
    ScriptDriver driver;
    std::string text;
    for (int line = 1; std::getline(in, text); ++line) {
        if (const auto hash = text.find('#'); hash != std::string::npos) text.erase(hash);
        std::istringstream words(text);
        Command command{line, {}};
        for (std::string w; words >> w;) command.words.push_back(w);
        if (command.words.empty()) continue;
        const auto known = arguments().find(command.words[0]);
        TINYAMP_CHECK(known != arguments().end(), io, path, " line ", line, ": unknown command '", command.words[0],
                      "' (frames, move, move-to-node, move-to-module-title, click, drag, wheel, key, click-button, remember, expect)");
        const int expected = known->second;
        TINYAMP_CHECK(expected < 0 ? command.words.size() >= 2 : int(command.words.size()) == expected + 1, io, path, " line ", line, ": '",
                      command.words[0], "' takes ", expected < 0 ? std::string("arguments") : std::to_string(expected) + " argument(s)");
        const bool numeric = command.words[0] == "move" || command.words[0] == "drag" || command.words[0] == "wheel" || command.words[0] == "frames";
        for (std::size_t i = 1; numeric && i < command.words.size(); ++i) {
            char* end = nullptr;
            std::strtod(command.words[i].c_str(), &end);
            TINYAMP_CHECK(end && *end == '\0', io, path, " line ", line, ": '", command.words[i], "' is not a number");
        }
        driver.commands_.push_back(std::move(command));
    }
    return driver;
}

void ScriptDriver::before_frame(Platform& platform, const VizApp& app)
{
    if (done()) return;
    const Command& c = commands_[next_];
    const std::string& name = c.words[0];
    const int f = frame_in_command_;
    auto move = [&](float x, float y) {
        mouse_x_ = x;
        mouse_y_ = y;
        platform.warp_mouse(int(std::lround(x)), int(std::lround(y)));
    };
    if (name == "move" && f == 0) move(std::stof(c.words[1]), std::stof(c.words[2]));
    if (name == "move-to-node" && f == 0) {
        const ImVec2 p = visible_node_center(app, rest_of(c.words, 1), c.line);
        move(p.x, p.y);
    }
    if (name == "move-to-module-title" && f == 0) {
        const ImVec2 p = module_title_point(app, c.words[1], c.line);
        move(p.x, p.y);
    }
    if (name == "click-button" && f == 0) {
        const std::optional<ImVec2> p = item_center(rest_of(c.words, 1));
        TINYAMP_CHECK(p.has_value(), value, "script line ", c.line, ": no button '", rest_of(c.words, 1), "' was drawn");
        move(p->x, p->y);
    }
    // Held one frame, then released. Dear ImGui 1.86's SDL backend reads the button's state from SDL
    // and only needs the press; 1.87 and later take both from the events, so the release is sent too.
    if ((name == "click" || name == "click-button") && f == 1) push_button(SDL_BUTTON_LEFT, true);
    if ((name == "click" || name == "click-button") && f == 2) push_button(SDL_BUTTON_LEFT, false);
    if (name == "drag") {
        // Pressed every frame while held: ImGui's SDL backend reads a pushed press as "down this frame".
        if (f >= 1 && f <= 5) {
            move(mouse_x_ + std::stof(c.words[1]) / 5, mouse_y_ + std::stof(c.words[2]) / 5);
        }
        if (f <= 5) push_button(SDL_BUTTON_LEFT, true);
        if (f == 6) push_button(SDL_BUTTON_LEFT, false);
    }
    if (name == "wheel" && f == 0) push_wheel(std::stoi(c.words[1]));
    if (name == "key") push_key_command(c.words[1], c.line, f);
}

void ScriptDriver::after_frame(const VizApp& app)
{
    // Commands that take no frame (remember, expect) run after the previous one's last frame.
    ++frame_in_command_;
    while (!done()) {
        const Command& c = commands_[next_];
        const int wanted = frames_of(c.words[0]) < 0 ? std::stoi(c.words[1]) : frames_of(c.words[0]);
        if (frame_in_command_ < wanted) return;
        if (c.words[0] == "remember") remembered_ = app.camera().view;
        if (c.words[0] == "expect") {
            const Document& doc = app.document();
            const Camera& view = app.camera().view;
            const std::string what = c.words[1], value = rest_of(c.words, 2);
            bool holds = false;
            std::string seen;
            if (what == "selected") {
                const int want = doc.find_node(value);
                holds = want >= 0 && doc.selected() == want;
                seen = doc.selected() >= 0 ? doc.graph().nodes[std::size_t(doc.selected())].name : "nothing";
            } else if (what == "position") {
                holds = doc.stepper().position() == std::size_t(std::stoul(value));
                seen = std::to_string(doc.stepper().position());
            } else if (what == "zoomed-in" || what == "zoomed-out") {
                holds = what == "zoomed-in" ? view.zoom > remembered_.zoom * 1.01f : view.zoom < remembered_.zoom / 1.01f;
                seen = "zoom " + std::to_string(remembered_.zoom) + " -> " + std::to_string(view.zoom);
            } else if (what == "panned") {
                const float dx = view.offset.x - remembered_.offset.x, dy = view.offset.y - remembered_.offset.y;
                holds = view.zoom == remembered_.zoom && std::abs(dx - std::stof(c.words[2])) <= 1.5f && std::abs(dy - std::stof(c.words[3])) <= 1.5f;
                seen = "moved by " + std::to_string(dx) + ", " + std::to_string(dy);
            } else if (what == "node-under-mouse") {
                const ImVec2 p = node_center(app, value, c.line);
                holds = std::abs(p.x - mouse_x_) <= 2 && std::abs(p.y - mouse_y_) <= 2;
                seen = "node at " + std::to_string(p.x) + ", " + std::to_string(p.y) + ", mouse at " + std::to_string(mouse_x_) + ", " +
                       std::to_string(mouse_y_);
            } else if (what == "folded" || what == "unfolded") {
                const bool folded = doc.collapsed().count(value) > 0;
                holds = doc.graph().module_index(value) >= 0 && folded == (what == "folded");
                seen = doc.graph().module_index(value) < 0 ? "no such module" : folded ? "folded" : "unfolded";
                seen += ", " + std::to_string(doc.collapsed().size()) + " folded, " + std::to_string(doc.graph().nodes.size()) + " nodes";
            } else if (what == "title") {
                seen = doc.title();
                holds = seen.find(value) != std::string::npos;
            } else if (what == "legend") {
                seen = app.camera().legend_folded ? "folded" : "open";
                holds = value == seen;
            } else {
                TINYAMP_FAIL(value, "script line ", c.line, ": 'expect ", what,
                             "' is not a check (selected, position, zoomed-in, zoomed-out, panned, node-under-mouse, folded, unfolded, legend, title)");
            }
            std::printf("%s: line %d: expect %s%s%s (%s)\n", holds ? "ok" : "FAILED", c.line, what.c_str(), value.empty() ? "" : " ",
                        value.c_str(), seen.c_str());
            if (!holds) ++failures_;
        }
        ++next_;
        frame_in_command_ = 0;
    }
}

}  // namespace tinyamp::viz
