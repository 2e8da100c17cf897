// A trace as a Graphviz DOT graph: `dot -Tsvg trace.dot -o trace.svg` draws it.
//
//   * one box per op event, filled with the color of its output dtype, labelled with the op, the
//     output dtype and shape, and the autocast rule applied;
//   * autocast's casts as "cds" (tag) shapes labelled "cast f32→bf16"; a cast served by the cast
//     cache has a dashed border and the line "cache hit";
//   * collectives of tinyamp::distributed (all_reduce, broadcast, ...) as hexagons filled with the
//     dtype their data travelled in, labelled with the reduction, that dtype and the bytes sent;
//   * tensors that come from outside the trace (parameters such as "w1", inputs, the backward
//     seed) as ellipses in their dtype's color;
//   * edges from the event that made a tensor to each event that used it, labelled with the
//     tensor's dtype and shape and colored like it;
//   * forward and backward events in two clusters, and a legend of the dtypes that appear;
//   * with GraphOptions (to_dot(trace, options)): each collapsed module as one "box3d" node per
//     phase, filled like its last output, its forward and backward nodes on one rank; with
//     module_clusters, the nodes of each expanded module in a cluster named cluster_m<k>f (or b),
//     labelled "4.attn · Attention", nested as the modules are.
// Node names: e<seq> for events, t<id> for outside tensors, legend_<dtype> for legend swatches;
// edges carry id="edge<k>", k their index in TraceGraph::edges. The nodes, edges and labels come
// from build_graph (trace_graph.h), which the visualizer draws too; this file adds the styles.
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "tinyamp/trace/palette.h"
#include "tinyamp/trace/recorder.h"
#include "tinyamp/trace/trace_graph.h"

namespace tinyamp::trace {
namespace {

// A DOT string literal: quotes and backslashes escaped, line breaks as DOT's "\n".
std::string quoted(std::string_view text)
{
    std::string out = "\"";
    for (const char c : text) {
        if (c == '"' || c == '\\') out += '\\';
        if (c == '\n') {
            out += "\\n";
            continue;
        }
        out += c;
    }
    out += '"';
    return out;
}

std::string joined_lines(const std::vector<std::string>& lines)
{
    std::string text;
    for (std::size_t i = 0; i < lines.size(); ++i) text.append(i == 0 ? "" : "\n").append(lines[i]);
    return text;
}

struct NodeStyle {
    std::string shape;
    std::string style = "filled";
    std::string fill = "#ffffff";
    std::string text = "#1a1a1a";
    std::string margin;  // Graphviz's space around the label, "x,y" inches; "" for its default
};

NodeStyle dtype_style(std::string shape, DType dtype)
{
    const DTypeColor color = dtype_color(dtype);
    NodeStyle s;
    s.shape = std::move(shape);
    s.fill = color.fill;
    s.text = color.text;
    return s;
}

std::string node_line(const std::string& name, const NodeStyle& s, const std::vector<std::string>& label, const std::string& tooltip)
{
    std::ostringstream out;
    out << "    " << name << " [shape=" << s.shape << ", style=" << quoted(s.style) << ", fillcolor=" << quoted(s.fill)
        << ", fontcolor=" << quoted(s.text) << ", label=" << quoted(joined_lines(label));
    if (!s.margin.empty()) out << ", margin=" << quoted(s.margin);
    if (!tooltip.empty()) out << ", tooltip=" << quoted(tooltip);
    out << "];";
    return out.str();
}

// How a graph node looks: ops are boxes (rounded in forward), casts "cds" tags (dashed when the
// cache served them), collectives hexagons, outside tensors ellipses (dashed when made before the
// recording started).
NodeStyle graph_node_style(const GraphNode& node)
{
    const std::string shape = node.kind == NodeKind::op           ? "box"
                              : node.kind == NodeKind::cast       ? "cds"
                              : node.kind == NodeKind::module     ? "box3d"
                              : node.kind == NodeKind::collective ? "hexagon"
                                                                  : "ellipse";
    NodeStyle style = node.has_dtype ? dtype_style(shape, node.dtype) : NodeStyle{shape};
    // A hexagon's label sits between its points: twice the default margin above and below keeps
    // its lines clear of the slanted sides when the visualizer writes them at its smallest size.
    if (node.kind == NodeKind::collective) style.margin = "0.11,0.11";
    if (node.kind == NodeKind::module || node.kind == NodeKind::collective) return style;
    if (node.kind == NodeKind::tensor) {
        if (!node.tensor.is_leaf) style.style = "filled,dashed";
        return style;
    }
    if (node.phase == Phase::forward && node.kind == NodeKind::op) style.style = "filled,rounded";
    if (node.cache == CacheEvent::hit) style.style = "filled,dashed";
    return style;
}

// The edge's id ("edge<k>", k its index in TraceGraph::edges) lets a layout read back exactly
// this edge, even when two edges join the same nodes (mul(x, x)).
std::string edge_line(const TraceGraph& graph, std::size_t k)
{
    const GraphEdge& edge = graph.edges[k];
    std::ostringstream out;
    out << "  " << graph.nodes[std::size_t(edge.from)].name << " -> " << graph.nodes[std::size_t(edge.to)].name
        << " [label=" << quoted(edge.label) << ", color=" << quoted(dtype_color(edge.tensor.dtype).fill)
        << ", id=\"edge" << k << "\"];";
    return out.str();
}

void write_cluster(std::ostream& out, const char* name, const char* label, const std::vector<std::string>& lines)
{
    if (lines.empty()) return;
    out << "  subgraph cluster_" << name << " {\n    label=" << quoted(label) << ";\n";
    for (const std::string& line : lines) out << line << '\n';
    out << "  }\n";
}

std::vector<std::string> legend_lines(const TraceGraph& graph)
{
    std::vector<std::string> lines, names;
    for (const DType d : graph.dtypes) {
        names.push_back(std::string("legend_") + dtype_name(d));
        lines.push_back(node_line(names.back(), dtype_style("box", d), {dtype_name(d)}, ""));
    }
    if (graph.has_casts) {
        names.push_back("legend_cast");
        lines.push_back(node_line(names.back(), NodeStyle{"cds"}, {"autocast cast"}, ""));
    }
    if (graph.has_collectives) {
        names.push_back("legend_collective");
        lines.push_back(node_line(names.back(), NodeStyle{"hexagon"}, {"collective"}, ""));
    }
    if (graph.has_cache_hits) {
        NodeStyle dashed{"box"};
        dashed.style = "filled,dashed";
        names.push_back("legend_cache_hit");
        lines.push_back(node_line(names.back(), dashed, {"cast cache hit"}, ""));
    }
    for (const GraphNode& node : graph.nodes) {
        if (node.kind != NodeKind::module) continue;
        names.push_back("legend_module");
        lines.push_back(node_line(names.back(), NodeStyle{"box3d"}, {"module (collapsed)"}, ""));
        break;
    }
    if (names.empty()) return {};
    // One row, in this order: same rank (set in a plain subgraph, as clusters ignore it), chained
    // left to right by invisible edges.
    lines.insert(lines.begin(), "    {rank=same;");
    lines.push_back("    }");
    for (std::size_t i = 1; i < names.size(); ++i)
        lines.push_back(std::string("    ").append(names[i - 1]).append(" -> ").append(names[i]).append(" [style=invis];"));
    return lines;
}

// The module a module path lies in: "4" for "4.attn", "" for "4".
std::string parent_path(const std::string& path)
{
    const std::size_t dot = path.rfind('.');
    return dot == std::string::npos ? "" : path.substr(0, dot);
}

// The cluster a node is drawn in, as a module path ("" for the phase's own cluster): its module
// when module clusters are on (a collapsed module's node sits in its parent's).
std::string cluster_path(const GraphNode& node, bool module_clusters)
{
    if (!module_clusters) return "";
    return node.kind == NodeKind::module ? parent_path(node.module) : node.module;
}

// One phase's nodes, nested in module clusters: `lines` maps a cluster path to its node lines;
// every path above one that has lines gets a cluster too.
class PhaseClusters {
public:
    PhaseClusters(const TraceGraph& graph, Phase phase) : graph_(graph), suffix_(phase == Phase::forward ? "f" : "b") {}
    void add(const std::string& path, std::string line)
    {
        lines_[path].push_back(std::move(line));
        for (std::string above = path; !above.empty();) {  // make sure every enclosing cluster exists
            above = parent_path(above);
            lines_[above];
        }
    }
    // The node lines of cluster `path`, then its child clusters, indented by depth.
    std::vector<std::string> lines(const std::string& path = "") const
    {
        std::vector<std::string> out;
        const auto own = lines_.find(path);
        if (own != lines_.end()) out = own->second;
        for (const auto& [child, unused] : lines_) {
            if (child.empty() || child == path || parent_path(child) != path) continue;
            const int k = graph_.module_index(child);
            const std::string type = k >= 0 ? graph_.module_types[std::size_t(k)] : "";
            out.push_back("    subgraph cluster_m" + std::to_string(k) + suffix_ + " {");
            out.push_back("    label=" + quoted(type.empty() ? child : child + " \u00b7 " + type) + ";");
            for (const std::string& line : lines(child)) out.push_back("  " + line);
            out.push_back("    }");
        }
        return out;
    }

private:
    const TraceGraph& graph_;
    std::string suffix_;
    std::map<std::string, std::vector<std::string>> lines_;  // by path, so a parent comes before its children
};

// Forward and backward nodes of a module collapsed in both phases, side by side: one rank each.
std::vector<std::string> side_by_side(const TraceGraph& graph)
{
    std::vector<std::string> lines;
    for (const GraphNode& node : graph.nodes) {
        if (node.kind != NodeKind::module || node.phase != Phase::forward) continue;
        const std::string backward = node.name.substr(0, node.name.size() - 1) + "b";
        if (graph.find(backward) >= 0) lines.push_back("  {rank=same; " + node.name + "; " + backward + ";}");
    }
    return lines;
}

}  // namespace

std::string Trace::to_dot() const { return trace::to_dot(*this, {}); }

std::string to_dot(const Trace& trace, const GraphOptions& options)
{
    const TraceGraph graph = build_graph(trace, options);
    PhaseClusters forward(graph, Phase::forward), backward(graph, Phase::backward);
    for (const GraphNode& node : graph.nodes)
        (node.phase == Phase::forward ? forward : backward)
            .add(cluster_path(node, options.module_clusters), node_line(node.name, graph_node_style(node), node.label, node.tooltip));
    const std::vector<std::string> ranks = side_by_side(graph);

    std::ostringstream out;
    out << "digraph tinyamp_trace {\n"
        << "  graph [rankdir=TB, fontname=\"Helvetica\", label=" << quoted(std::to_string(trace.events().size()).append(" events"))
        // newrank: rank=same may then join nodes of two clusters (forward and backward)
        << (ranks.empty() ? "" : ", newrank=true") << "];\n"
        << "  node [fontname=\"Helvetica\", fontsize=11];\n"
        << "  edge [fontname=\"Helvetica\", fontsize=9];\n";
    write_cluster(out, "forward", "forward", forward.lines());
    write_cluster(out, "backward", "backward", backward.lines());
    write_cluster(out, "legend", "dtypes", legend_lines(graph));
    for (const std::string& line : ranks) out << line << '\n';
    for (std::size_t k = 0; k < graph.edges.size(); ++k) out << edge_line(graph, k) << '\n';
    out << "}\n";
    return out.str();
}

}  // namespace tinyamp::trace
