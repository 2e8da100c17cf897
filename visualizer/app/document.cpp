#include "visualizer/app/document.h"

#include <algorithm>
#include <string_view>
#include <utility>

namespace tinyamp::viz {

Document::Document(trace::Trace trace, std::string title, std::optional<std::set<std::string>> collapsed)
    : title_(std::move(title)),
      trace_(std::move(trace)),
      first_collapsed_(default_collapsed(trace::build_graph(trace_))),
      collapsed_(collapsed ? std::move(*collapsed) : first_collapsed_),
      view_(build_module_view(trace_, collapsed_)),
      stepper_(view_.graph, trace_.events().size())
{
}

void Document::set_collapsed(std::set<std::string> modules)
{
    ModuleView view = build_module_view(trace_, modules);  // first, so a failure changes nothing
    const std::string selected_name = selected_ >= 0 ? view_.graph.nodes[std::size_t(selected_)].name : "";
    collapsed_ = std::move(modules);
    view_ = std::move(view);
    const Stepper previous = stepper_;
    stepper_ = Stepper(view_.graph, trace_.events().size());
    stepper_.seek(previous.position());
    stepper_.set_speed(previous.speed());
    if (previous.playing()) stepper_.play();
    selected_ = selected_name.empty() ? -1 : view_.graph.find(selected_name);
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

namespace {

// A node query's op part: "backward:OP" looks among backward events only.
struct OpQuery {
    std::string op;
    bool backward_only = false;
};
OpQuery op_query(const std::string& name)
{
    constexpr std::string_view prefix = "backward:";
    if (name.rfind(prefix, 0) == 0) return {name.substr(prefix.size()), true};
    return {name, false};
}

}  // namespace

int Document::find_or_reveal(const std::string& name)
{
    const trace::TraceGraph& graph = view_.graph;
    if (const int node = find_node(name); node >= 0 && graph.nodes[std::size_t(node)].kind != trace::NodeKind::module) return node;
    // The event it names (e12, OP, backward:OP), or the first event that uses a tensor of that name.
    const OpQuery query = op_query(name);
    const std::vector<trace::Event>& events = trace_.events();
    auto names_it = [&](const trace::Event& e) {
        if (query.backward_only && e.phase != trace::Phase::backward) return false;
        if (std::string("e").append(std::to_string(e.seq)) == name || e.op == query.op) return true;
        for (const trace::TensorInfo& t : e.inputs)
            if (t.name == name) return true;
        return false;
    };
    const auto event = std::find_if(events.begin(), events.end(), names_it);
    if (event == events.end()) return find_node(name);
    const int holder = graph.node_of_event(std::size_t(event - events.begin()));
    if (holder < 0 || graph.nodes[std::size_t(holder)].kind != trace::NodeKind::module) return find_node(name);
    expand(graph.nodes[std::size_t(holder)].module);  // `graph` is rebuilt here: not used after
    return find_node(name);
}

int Document::find_node(const std::string& name) const
{
    const trace::TraceGraph& graph = view_.graph;
    if (const int node = graph.find(name); node >= 0) return node;
    if (name.rfind("module:", 0) == 0) {  // module:PATH or module:PATH:backward
        std::string path = name.substr(7);
        trace::Phase phase = trace::Phase::forward;
        if (const std::size_t colon = path.find(':'); colon != std::string::npos && path.substr(colon + 1) == "backward") {
            path.resize(colon);
            phase = trace::Phase::backward;
        }
        for (std::size_t i = 0; i < graph.nodes.size(); ++i)
            if (graph.nodes[i].kind == trace::NodeKind::module && graph.nodes[i].module == path && graph.nodes[i].phase == phase) return int(i);
        return -1;
    }
    const OpQuery query = op_query(name);
    for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
        const trace::GraphNode& node = graph.nodes[i];
        if (node.event < 0) continue;
        if (query.backward_only && node.phase != trace::Phase::backward) continue;
        if (trace_.events()[std::size_t(node.event)].op == query.op) return int(i);
    }
    for (std::size_t i = 0; i < graph.nodes.size(); ++i)  // a tensor by its name ("0.weight"), a module by "0 · Linear"
        if (!query.backward_only && !graph.nodes[i].label.empty() && graph.nodes[i].label.front() == name) return int(i);
    return -1;
}

}  // namespace tinyamp::viz
