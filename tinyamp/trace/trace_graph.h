#pragma once
/// \file
/// A trace as a graph: the one builder behind both the DOT export (Trace::to_dot) and the
/// visualizer, so the picture in the docs and the one in the GUI have the same nodes and edges.
///
///   * one node per event (an op, or a cast autocast inserted), named `e<seq>`;
///   * one node per tensor that no event of the trace made (a parameter, an input, the backward
///     seed), named `t<id>`, placed right before its first consumer;
///   * one edge per (producer, consumer, input slot): from the event that made a tensor last, or
///     from the tensor's own node, to each event that used it.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "tinyamp/trace/recorder.h"

namespace tinyamp::trace {

/// What a graph node stands for: `op` (an op event, forward or backward), `cast` (a cast
/// autocast inserted) or `tensor` (a tensor from outside the trace).
enum class NodeKind { op, cast, tensor };
const char* node_kind_name(NodeKind kind);  ///< "op" / "cast" / "tensor"

/// One node of a TraceGraph, with what the DOT export and the visualizer draw in it.
struct GraphNode {
    std::string name;                 ///< DOT node name: `e<seq>` for events, `t<id>` for outside tensors
    NodeKind kind = NodeKind::op;     ///< op, cast or tensor
    Phase phase = Phase::forward;     ///< a tensor node takes its first consumer's phase
    int event = -1;                   ///< index into Trace::events() (op and cast nodes); -1 for tensor nodes
    TensorInfo tensor;                ///< tensor nodes only: the tensor as first seen
    bool has_dtype = false;           ///< false for an event with neither outputs nor inputs
    DType dtype = DType::f32;         ///< the fill: the first output's dtype, else the first input's
    std::vector<std::string> label;   ///< the lines drawn in the node, the same as in the DOT export
    std::string tooltip;              ///< the event's `why` ("" for tensor nodes)
    CacheEvent cache = CacheEvent::none;  ///< the cast cache's part in a cast event (none otherwise)
    bool is_parameter = false;        ///< a tensor node for a leaf that requires grad (a weight)
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

/// A trace's nodes and edges, built by build_graph().
struct TraceGraph {
    std::vector<GraphNode> nodes;  ///< events in trace order, each outside tensor just before its first consumer
    std::vector<GraphEdge> edges;  ///< in the order the DOT export writes them
    std::vector<DType> dtypes;     ///< the dtypes of the events' inputs and outputs, in kAllDTypes order (the legend)
    bool has_casts = false;        ///< some event is an autocast cast (the legend shows the cast key)
    bool has_cache_hits = false;   ///< some cast was a cache hit (the legend shows the hit key)
    std::vector<int> event_nodes;  ///< event_nodes[i]: the node of Trace::events()[i]

    /// The node of Trace::events()[event_index], or -1.
    int node_of_event(std::size_t event_index) const;
    /// The node named `name` ("e12", "t7"), or -1.
    int find(std::string_view name) const;
};

/// The graph of `trace`: a node per event, a node per outside tensor and an edge per input slot,
/// as listed at the top of this file.
TraceGraph build_graph(const Trace& trace);

}  // namespace tinyamp::trace
