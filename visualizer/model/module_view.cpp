#include "visualizer/model/module_view.h"

#include <algorithm>

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

ModuleView build_module_view(const trace::Trace& trace, const std::set<std::string>& collapsed)
{
    const trace::GraphOptions options = view_options(collapsed);
    ModuleView view;
    view.graph = trace::build_graph(trace, options);
    view.layout = layout_graph(view.graph, trace::to_dot(trace, options));
    return view;
}

}  // namespace tinyamp::viz
