#include "visualizer/app/document.h"

#include <utility>

namespace tinyamp::viz {

Document::Document(trace::Trace trace, std::string title)
    : title_(std::move(title)),
      trace_(std::move(trace)),
      graph_(trace::build_graph(trace_)),
      layout_(layout_graph(graph_, trace_.to_dot())),
      stepper_(graph_, trace_.events().size())
{
}

int Document::find_node(const std::string& name) const
{
    if (const int node = graph_.find(name); node >= 0) return node;
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
    return -1;
}

}  // namespace tinyamp::viz
