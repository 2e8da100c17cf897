#pragma once
// Where each node and edge of a trace graph goes, computed by Graphviz's `dot` layout in-process
// (libgvc) from the very DOT text Trace::to_dot() exports, then read back: the GUI draws the same
// picture as `dot -Tsvg`. Coordinates are Graphviz points (1/72 inch) with the origin at the top
// left and y growing downwards, as screens have it.
#include <string>
#include <vector>

#include "tinyamp/trace/trace_graph.h"

namespace tinyamp::viz {

struct Vec2 {
    float x = 0;
    float y = 0;
};

struct NodeBox {
    Vec2 center;
    Vec2 size;  ///< width, height
};

struct EdgeCurve {
    /// A cubic B-spline as Graphviz gives it: p0, then (c1, c2, p) triples; at least 4 points.
    std::vector<Vec2> points;
    bool has_arrow = false;
    Vec2 arrow_tip;   ///< where the arrowhead points (the head node's border)
    Vec2 label_pos;   ///< centre of the edge's label (dtype and shape)
};

struct ClusterBox {
    std::string name;   ///< "forward", "backward", or "m<k>f" / "m<k>b" for a module's (the DOT's cluster_<name>)
    std::string label;
    std::string module; ///< a module's cluster: its path (TraceGraph::modules[k]); "" for forward and backward
    Vec2 min;
    Vec2 max;
};

struct Layout {
    std::vector<NodeBox> nodes;        ///< nodes[i] places graph.nodes[i]
    std::vector<EdgeCurve> edges;      ///< edges[i] routes graph.edges[i]
    std::vector<ClusterBox> clusters;  ///< forward, backward and the modules' frames, each before those inside it (the legend cluster is left out)
    Vec2 size;                         ///< the whole drawing's width and height
};

/// Lays out `graph`, whose DOT text is `dot` (Trace::to_dot() of the same trace). Throws
/// Error(value) when the DOT does not name every node and edge of the graph, or Graphviz fails.
Layout layout_graph(const trace::TraceGraph& graph, const std::string& dot);

}  // namespace tinyamp::viz
