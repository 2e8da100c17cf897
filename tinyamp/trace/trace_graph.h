#pragma once
// A trace as a graph: the one builder behind both the DOT export (Trace::to_dot) and the
// visualizer, so the picture in the docs and the one in the GUI have the same nodes and edges.
//
//   * one node per event (an op, or a cast autocast inserted), named "e<seq>";
//   * one node per tensor that no event of the trace made (a parameter, an input, the backward
//     seed), named "t<id>", placed right before its first consumer;
//   * one edge per (producer, consumer, input slot): from the event that made a tensor last, or
//     from the tensor's own node, to each event that used it.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "tinyamp/trace/trace.h"

namespace tinyamp::trace {

enum class NodeKind { op, cast, tensor };
const char* node_kind_name(NodeKind kind);  ///< "op" / "cast" / "tensor"

struct GraphNode {
    std::string name;                 ///< DOT node name: "e<seq>" for events, "t<id>" for outside tensors
    NodeKind kind = NodeKind::op;
    Phase phase = Phase::forward;     ///< a tensor node takes its first consumer's phase
    int event = -1;                   ///< index into Trace::events() (op and cast nodes); -1 for tensor nodes
    TensorInfo tensor;                ///< tensor nodes only: the tensor as first seen
    bool has_dtype = false;           ///< false for an event with neither outputs nor inputs
    DType dtype = DType::f32;         ///< the fill: the first output's dtype, else the first input's
    std::vector<std::string> label;   ///< the lines drawn in the node, the same as in the DOT export
    std::string tooltip;              ///< the event's `why` ("" for tensor nodes)
    CacheEvent cache = CacheEvent::none;
    bool is_parameter = false;        ///< a tensor node for a leaf that requires grad (a weight)
};

struct GraphEdge {
    int from = -1;      ///< index into TraceGraph::nodes
    int to = -1;
    int slot = 0;       ///< which input of `to` this is
    TensorInfo tensor;  ///< what flows along it (as the consumer received it)
    std::string label;  ///< drawn on the edge: the tensor's dtype and shape, e.g. "bf16 [2, 3]"
};

struct TraceGraph {
    std::vector<GraphNode> nodes;  ///< events in trace order, each outside tensor just before its first consumer
    std::vector<GraphEdge> edges;  ///< in the order the DOT export writes them
    std::vector<DType> dtypes;     ///< the dtypes of the events' inputs and outputs, in kAllDTypes order (the legend)
    bool has_casts = false;
    bool has_cache_hits = false;
    std::vector<int> event_nodes;  ///< event_nodes[i]: the node of Trace::events()[i]

    /// The node of Trace::events()[event_index], or -1.
    int node_of_event(std::size_t event_index) const;
    /// The node named `name` ("e12", "t7"), or -1.
    int find(std::string_view name) const;
};

TraceGraph build_graph(const Trace& trace);

}  // namespace tinyamp::trace
