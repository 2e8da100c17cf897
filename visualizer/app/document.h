#pragma once
// What the visualizer shows: one trace, its graph, the graph's layout and the timeline over its
// events. Rebuilt whenever the trace changes (a training step, a file opened).
#include <memory>
#include <string>

#include "tinyamp/trace/trace_graph.h"
#include "visualizer/model/layout.h"
#include "visualizer/model/stepper.h"

namespace tinyamp::viz {

class Document {
public:
    /// Builds the graph and lays it out (Graphviz); throws what layout_graph throws.
    Document(trace::Trace trace, std::string title);
    Document(const Document&) = delete;  // the stepper points into graph_
    Document& operator=(const Document&) = delete;

    const std::string& title() const { return title_; }
    const trace::Trace& trace() const { return trace_; }
    const trace::TraceGraph& graph() const { return graph_; }
    const Layout& layout() const { return layout_; }
    Stepper& stepper() { return stepper_; }
    const Stepper& stepper() const { return stepper_; }

    int selected() const { return selected_; }
    void select(int node) { selected_ = node; }
    /// The node the inspector shows: the selection, else the timeline's current event.
    int inspected() const { return selected_ >= 0 ? selected_ : stepper_.current_node(); }

    /// A node by name ("e12") or, failing that, the first event node whose op is `name`;
    /// "backward:OP" looks among backward events only. -1 when none matches.
    int find_node(const std::string& name) const;

private:
    std::string title_;
    trace::Trace trace_;
    trace::TraceGraph graph_;
    Layout layout_;
    Stepper stepper_;
    int selected_ = -1;
};

}  // namespace tinyamp::viz
