#include "visualizer/model/module_view.h"

#include <algorithm>
#include <string_view>

namespace tinyamp::viz {

std::set<std::string> default_collapsed(const trace::TraceGraph& full)
{
    return full.nodes.size() <= kCollapseAbove ? std::set<std::string>{} : innermost_modules(full);
}

std::set<std::string> innermost_modules(const trace::TraceGraph& graph)
{
    std::set<std::string> innermost;
    for (const std::string& path : graph.modules) {
        // "2" holds "2.0" (and not "20")
        const auto holds = [&](const std::string& other) {
            return other.size() > path.size() && other.starts_with(path) && other[path.size()] == '.';
        };
        if (std::none_of(graph.modules.begin(), graph.modules.end(), holds)) innermost.insert(path);
    }
    return innermost;
}

std::set<std::string> top_level_modules(const trace::TraceGraph& graph)
{
    std::set<std::string> top;
    for (const std::string& path : graph.modules)
        if (path.find('.') == std::string::npos) top.insert(path);
    return top;
}

trace::GraphOptions view_options(const std::set<std::string>& collapsed) { return {.collapsed = collapsed, .module_clusters = true}; }

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

int find_node(const trace::Trace& trace, const trace::TraceGraph& graph, const std::string& name)
{
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
        if (trace.events()[std::size_t(node.event)].op == query.op) return int(i);
    }
    for (std::size_t i = 0; i < graph.nodes.size(); ++i)  // a tensor by its name ("0.weight"), a module by "0 · Linear"
        if (!query.backward_only && !graph.nodes[i].label.empty() && graph.nodes[i].label.front() == name) return int(i);
    return -1;
}

std::string module_hiding(const trace::Trace& trace, const trace::TraceGraph& graph, const std::string& name)
{
    if (const int node = find_node(trace, graph, name); node >= 0 && graph.nodes[std::size_t(node)].kind != trace::NodeKind::module) return "";
    // The event it names (e12, OP, backward:OP), or the first event that uses a tensor of that name.
    const OpQuery query = op_query(name);
    const std::vector<trace::Event>& events = trace.events();
    auto names_it = [&](const trace::Event& e) {
        if (query.backward_only && e.phase != trace::Phase::backward) return false;
        if (std::string("e").append(std::to_string(e.seq)) == name || e.op == query.op) return true;
        for (const trace::TensorInfo& t : e.inputs)
            if (t.name == name) return true;
        return false;
    };
    const auto event = std::find_if(events.begin(), events.end(), names_it);
    if (event == events.end()) return "";
    const int holder = graph.node_of_event(std::size_t(event - events.begin()));
    if (holder < 0 || graph.nodes[std::size_t(holder)].kind != trace::NodeKind::module) return "";
    return graph.nodes[std::size_t(holder)].module;
}

ModuleView build_module_view(const trace::Trace& trace, const std::set<std::string>& collapsed)
{
    const trace::GraphOptions options = view_options(collapsed);
    ModuleView view;
    view.graph = trace::build_graph(trace, options);
    view.layout = layout_graph(view.graph, trace::to_dot(trace, options));
    return view;
}

}  // namespace tinyamp::viz
