#pragma once
// The graph the GUI shows, grouped by nn::Module: which modules start collapsed, and the graph
// and layout for a set of collapsed modules (each module expanded is a cluster of its own).
#include <cstddef>
#include <set>
#include <string>

#include "tinyamp/trace/trace_graph.h"
#include "visualizer/model/layout.h"

namespace tinyamp::viz {

/// A trace whose full graph has more nodes than this starts with its model's layers (innermost
/// modules) collapsed: at 1280x800, a graph of more nodes does not fit the canvas at a size
/// whose labels can be read (the MLP scenario's 73 nodes fold into 31, which about fit).
constexpr std::size_t kCollapseAbove = 40;

/// The modules collapsed when a trace is first shown: none for a graph of up to kCollapseAbove
/// nodes, else innermost_modules(full). For a flat model (a Sequential of layers, as every
/// digits scenario) those are its top-level modules; for a nested one (the GPT: a Block holding
/// an attention holding Linears) the Linears, LayerNorms and Embeddings fold, and the frames
/// around them stay open, so the ops between the layers (the attention op, the residual adds)
/// are seen at once. `full` is the graph with nothing collapsed.
std::set<std::string> default_collapsed(const trace::TraceGraph& full);
/// The modules in `graph` that hold no other module of it: "0", "1" and "2.0" of a model
/// Sequential(0: Linear, 1: ReLU, 2: Sequential(0: Linear)), never "2".
std::set<std::string> innermost_modules(const trace::TraceGraph& graph);
/// The model's top-level modules in `graph`: the paths without a dot ("0", "1", ...).
std::set<std::string> top_level_modules(const trace::TraceGraph& graph);

/// The options the GUI builds its graph with: these modules collapsed, the others in clusters.
trace::GraphOptions view_options(const std::set<std::string>& collapsed);

/// The node of `graph` (the graph of `trace`, some modules folded) that `name` names, as --select
/// names nodes: a node's own name ("e12"), else the first event node whose op is `name`, else the
/// first node whose label starts with the line `name` (a tensor's name, "0.weight").
/// "backward:OP" looks among backward events only; "module:PATH" is the forward box of a folded
/// module (or "module:PATH:backward"). -1 when none matches.
int find_node(const trace::Trace& trace, const trace::TraceGraph& graph, const std::string& name);
/// The folded module of `graph` whose box holds what `name` names (the event it names, e12 or
/// an op, or the first event that uses a tensor of that name): unfolded, it shows that node. ""
/// when `name` names a node of `graph` already, or nothing.
std::string module_hiding(const trace::Trace& trace, const trace::TraceGraph& graph, const std::string& name);

/// The graph of `trace` with `collapsed` modules, and its Graphviz layout.
struct ModuleView {
    trace::TraceGraph graph;
    Layout layout;
};
ModuleView build_module_view(const trace::Trace& trace, const std::set<std::string>& collapsed);

}  // namespace tinyamp::viz
