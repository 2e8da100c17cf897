#include "visualizer/model/module_view.h"

namespace tinyamp::viz {

std::set<std::string> default_collapsed(const trace::TraceGraph& full)
{
    std::set<std::string> collapsed;
    if (full.nodes.size() <= kCollapseAbove) return collapsed;
    for (const std::string& path : full.modules)
        if (path.find('.') == std::string::npos) collapsed.insert(path);
    return collapsed;
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
