#include "visualizer/app/document.h"

#include <algorithm>
#include <utility>

namespace tinyamp::viz {

Document::Document(trace::Trace trace, std::string title, std::optional<std::set<std::string>> collapsed)
    : title_(std::move(title)),
      trace_(std::move(trace)),
      first_collapsed_(default_collapsed(trace::build_graph(trace_))),
      collapsed_(collapsed ? std::move(*collapsed) : first_collapsed_),
      stepper_(graph_, 0)
{
    ModuleView view = build_module_view(trace_, collapsed_);
    graph_ = std::move(view.graph);
    layout_ = std::move(view.layout);
    stepper_ = Stepper(graph_, trace_.events().size());
}

void Document::set_collapsed(std::set<std::string> modules)
{
    ModuleView view = build_module_view(trace_, modules);  // first, so a failure changes nothing
    const std::string selected_name = selected_ >= 0 ? graph_.nodes[std::size_t(selected_)].name : "";
    collapsed_ = std::move(modules);
    graph_ = std::move(view.graph);
    layout_ = std::move(view.layout);
    const Stepper previous = stepper_;
    stepper_ = Stepper(graph_, trace_.events().size());
    stepper_.seek(previous.position());
    stepper_.set_speed(previous.speed());
    if (previous.playing()) stepper_.play();
    selected_ = selected_name.empty() ? -1 : graph_.find(selected_name);
}

void Document::expand(const std::string& module)
{
    std::set<std::string> modules = collapsed_;
    modules.erase(module);
    set_collapsed(std::move(modules));
}

void Document::collapse(const std::string& module)
{
    std::set<std::string> modules = collapsed_;
    modules.insert(module);
    set_collapsed(std::move(modules));
}

int Document::find_or_reveal(const std::string& name)
{
    if (const int node = find_node(name); node >= 0 && graph_.nodes[std::size_t(node)].kind != trace::NodeKind::module) return node;
    // The event it names (e12, OP, backward:OP), or the first event that uses a tensor of that name.
    const bool backward_only = name.rfind("backward:", 0) == 0;
    const std::string op = backward_only ? name.substr(9) : name;
    const std::vector<trace::Event>& events = trace_.events();
    auto names_it = [&](const trace::Event& e) {
        if (backward_only && e.phase != trace::Phase::backward) return false;
        if (std::string("e").append(std::to_string(e.seq)) == name || e.op == op) return true;
        for (const trace::TensorInfo& t : e.inputs)
            if (t.name == name) return true;
        return false;
    };
    const auto event = std::find_if(events.begin(), events.end(), names_it);
    if (event == events.end()) return find_node(name);
    const int holder = graph_.node_of_event(std::size_t(event - events.begin()));
    if (holder < 0 || graph_.nodes[std::size_t(holder)].kind != trace::NodeKind::module) return find_node(name);
    expand(graph_.nodes[std::size_t(holder)].module);
    return find_node(name);
}

int Document::find_node(const std::string& name) const
{
    if (const int node = graph_.find(name); node >= 0) return node;
    if (name.rfind("module:", 0) == 0) {  // module:PATH or module:PATH:backward
        std::string path = name.substr(7);
        trace::Phase phase = trace::Phase::forward;
        if (const std::size_t colon = path.find(':'); colon != std::string::npos && path.substr(colon + 1) == "backward") {
            path.resize(colon);
            phase = trace::Phase::backward;
        }
        for (std::size_t i = 0; i < graph_.nodes.size(); ++i)
            if (graph_.nodes[i].kind == trace::NodeKind::module && graph_.nodes[i].module == path && graph_.nodes[i].phase == phase) return int(i);
        return -1;
    }
    std::string op = name;
    bool backward_only = false;
    if (op.rfind("backward:", 0) == 0) {
        op = op.substr(9);
        backward_only = true;
    }
    for (std::size_t i = 0; i < graph_.nodes.size(); ++i) {
        const trace::GraphNode& node = graph_.nodes[i];
        if (node.event < 0) continue;
        if (backward_only && node.phase != trace::Phase::backward) continue;
        if (trace_.events()[std::size_t(node.event)].op == op) return int(i);
    }
    for (std::size_t i = 0; i < graph_.nodes.size(); ++i)  // a tensor by its name ("0.weight"), a module by "0 · Linear"
        if (!backward_only && !graph_.nodes[i].label.empty() && graph_.nodes[i].label.front() == name) return int(i);
    return -1;
}

}  // namespace tinyamp::viz
