#pragma once
// What the visualizer shows: one trace, its graph (with some modules collapsed), the graph's
// layout and the timeline over its events. Rebuilt whenever the trace changes (a training step,
// a file opened); the graph and layout also when a module is expanded or collapsed.
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "tinyamp/trace/trace_graph.h"
#include "visualizer/model/layout.h"
#include "visualizer/model/module_view.h"
#include "visualizer/model/stepper.h"

namespace tinyamp::viz {

class Document {
public:
    /// Builds the graph, with the modules default_collapsed() picks collapsed (or `collapsed`,
    /// when given: paths the trace lacks are ignored), and lays it out (Graphviz); throws what
    /// layout_graph throws.
    Document(trace::Trace trace, std::string title, std::optional<std::set<std::string>> collapsed = std::nullopt);
    Document(const Document&) = delete;  // the stepper points into view_.graph
    Document& operator=(const Document&) = delete;

    const std::string& title() const { return title_; }
    const trace::Trace& trace() const { return trace_; }
    const trace::TraceGraph& graph() const { return view_.graph; }
    const Layout& layout() const { return view_.layout; }
    Stepper& stepper() { return stepper_; }
    const Stepper& stepper() const { return stepper_; }

    int selected() const { return selected_; }
    void select(int node) { selected_ = node; }
    /// The node the inspector shows: the selection, else the timeline's current event.
    int inspected() const { return selected_ >= 0 ? selected_ : stepper_.current_node(); }

    /// viz::find_node() on the graph shown (module_view.h): "e12", an op, "backward:OP", a tensor's
    /// name, "module:PATH"; -1 when none matches.
    int find_node(const std::string& name) const;
    /// find_node(), and when `name` is an event (e12, an op) or a tensor inside a folded module,
    /// unfolds that module first, so the node can be shown. -1 when nothing matches.
    int find_or_reveal(const std::string& name);

    /// The modules drawn collapsed (paths, as TraceGraph::modules has them).
    const std::set<std::string>& collapsed() const { return collapsed_; }
    /// Draws these modules collapsed and the others expanded: the graph and its layout are built
    /// again; the timeline keeps its position, the selection its node when it is still there.
    void set_collapsed(std::set<std::string> modules);
    void expand(const std::string& module);    ///< set_collapsed without `module`
    void collapse(const std::string& module);  ///< set_collapsed with `module`
    /// The modules default_collapsed() picks for this trace (what C folds back to).
    const std::set<std::string>& first_collapsed() const { return first_collapsed_; }

private:
    std::string title_;
    trace::Trace trace_;
    std::set<std::string> first_collapsed_;
    std::set<std::string> collapsed_;
    ModuleView view_;  // the graph with collapsed_ folded, and its layout
    Stepper stepper_;
    int selected_ = -1;
};

}  // namespace tinyamp::viz
