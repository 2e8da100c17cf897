#pragma once
/// \file
/// A trace as a graph: the one builder behind both the DOT export (Trace::to_dot) and the
/// visualizer, so the picture in the docs and the one in the GUI have the same nodes and edges.
///
///   * one node per event (an op, or a cast autocast inserted), named `e<seq>`;
///   * one node per tensor that no event of the trace made (a parameter, an input, the backward
///     seed), named `t<id>`, placed right before its first consumer;
///   * one edge per (producer, consumer, input slot): from the event that made a tensor last, or
///     from the tensor's own node, to each event that used it;
///   * with GraphOptions::collapsed, one node per collapsed module and phase, named `m<k>f` /
///     `m<k>b` (k: the module's index in TraceGraph::modules), in place of everything that ran
///     in it (trace_modules.cpp).
#include <cstddef>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "tinyamp/trace/recorder.h"

namespace tinyamp::trace {

/// What a graph node stands for: `op` (an op event, forward or backward), `cast` (a cast
/// autocast inserted), `tensor` (a tensor from outside the trace), `module` (a collapsed
/// module: every node that ran in it, in one phase) or `collective` (a collective of
/// tinyamp::distributed: where data leaves the rank, filled by the dtype it travelled in).
enum class NodeKind { op, cast, tensor, module, collective };
const char* node_kind_name(NodeKind kind);  ///< "op" / "cast" / "tensor" / "module" / "collective"

/// One node of a TraceGraph, with what the DOT export and the visualizer draw in it.
struct GraphNode {
    std::string name;                 ///< DOT node name: `e<seq>` for events, `t<id>` for outside tensors
    NodeKind kind = NodeKind::op;     ///< op, cast, tensor, module or collective
    Phase phase = Phase::forward;     ///< a tensor node takes its first consumer's phase
    int event = -1;                   ///< index into Trace::events() (op and cast nodes); -1 for tensor nodes
    TensorInfo tensor;                ///< tensor nodes only: the tensor as first seen
    bool has_dtype = false;           ///< false for an event with neither outputs nor inputs
    DType dtype = DType::f32;         ///< the fill: the first output's dtype, else the first input's (a collective: the dtype it travelled in)
    std::vector<std::string> label;   ///< the lines drawn in the node, the same as in the DOT export
    std::string tooltip;              ///< the event's `why` ("" for tensor nodes)
    CacheEvent cache = CacheEvent::none;  ///< the cast cache's part in a cast event (none otherwise)
    bool is_parameter = false;        ///< a tensor node for a leaf that requires grad (a weight)
    /// The module it ran in (Event::module); a parameter takes its first consumer's, other
    /// outside tensors none (""); a module node: the module it stands for.
    std::string module;
    std::string module_type;   ///< that module's own type name ("Linear"), "" when unknown or none
    std::vector<int> events;   ///< module nodes: the events they stand for (indices into Trace::events())
    int casts = 0;             ///< module nodes: how many of those events are autocast's casts
    int cache_hits = 0;        ///< module nodes: how many of those casts the cast cache served
};

/// One edge of a TraceGraph: a tensor going from its producer (or its own node) into one
/// input slot of an event.
struct GraphEdge {
    int from = -1;      ///< index into TraceGraph::nodes
    int to = -1;        ///< index into TraceGraph::nodes: the consuming event
    int slot = 0;       ///< which input of `to` this is
    TensorInfo tensor;  ///< what flows along it (as the consumer received it)
    std::string label;  ///< drawn on the edge: the tensor's dtype and shape, e.g. "bf16 [2, 3]"
};

/// How build_graph() and to_dot() group a trace's nodes by the nn::Module they ran in.
struct GraphOptions {
    /// Modules drawn as one node per phase (paths as in Event::module); what ran in a module
    /// inside a collapsed one is part of the outer one's node. Paths the trace lacks are ignored.
    std::set<std::string> collapsed;
    /// to_dot() only: draw the nodes of each module that is not collapsed inside a cluster
    /// labelled with its path and type, nested as the modules are.
    bool module_clusters = false;
};

/// A trace's nodes and edges, built by build_graph().
struct TraceGraph {
    std::vector<GraphNode> nodes;  ///< events in trace order, each outside tensor just before its first consumer
    std::vector<GraphEdge> edges;  ///< in the order the DOT export writes them
    /// The dtypes of the events' inputs and outputs and those collectives travelled in, in
    /// kAllDTypes order (the legend).
    std::vector<DType> dtypes;
    /// The element dtypes of the events' scaled casts (Event::scaled_casts: the FP8/FP4 casts
    /// inside fp8_linear, whose inputs and outputs stay f32), in kAllDTypes order: the
    /// visualizer's legend lists them too, although no node is filled with them.
    std::vector<DType> scaled_cast_dtypes;
    bool has_casts = false;        ///< some event is an autocast cast (the legend shows the cast key)
    bool has_cache_hits = false;   ///< some cast was a cache hit (the legend shows the hit key)
    bool has_collectives = false;  ///< some event is a collective (the legend shows the collective key)
    std::vector<int> event_nodes;  ///< event_nodes[i]: the node of Trace::events()[i] (a module node when it is collapsed)
    /// Every module path the events ran in, with the paths above them ("4" before "4.attn"), in
    /// the order they first appear.
    std::vector<std::string> modules;
    std::vector<std::string> module_types;  ///< module_types[k]: modules[k]'s type name ("" if unknown)

    /// The node of Trace::events()[event_index], or -1.
    int node_of_event(std::size_t event_index) const;
    /// The node named `name` ("e12", "t7"), or -1.
    int find(std::string_view name) const;
    /// The index of `path` in `modules`, or -1.
    int module_index(std::string_view path) const;
};

/// The graph of `trace`: a node per event, a node per outside tensor and an edge per input slot,
/// as listed at the top of this file, with the modules `options` collapses as one node each.
TraceGraph build_graph(const Trace& trace, const GraphOptions& options = {});

/// Graphviz DOT of build_graph(trace, options), styled as Trace::to_dot() describes (which is
/// to_dot(trace, {})); collapsed modules are "box3d" nodes, and a module collapsed in both
/// phases has its forward and backward nodes on the same rank (side by side).
std::string to_dot(const Trace& trace, const GraphOptions& options);

/// "a.b.c" → {"a", "b", "c"}; "" → {}.
std::vector<std::string> split_path(std::string_view path);

}  // namespace tinyamp::trace
