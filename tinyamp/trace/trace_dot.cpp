// A trace as a Graphviz DOT graph: `dot -Tsvg trace.dot -o trace.svg` draws it.
//
//   * one box per op event, filled with the color of its output dtype, labelled with the op, the
//     output dtype and shape, and the autocast rule applied;
//   * autocast's casts as "cds" (tag) shapes labelled "cast f32→bf16"; a cast served by the cast
//     cache has a dashed border and the line "cache hit";
//   * tensors that come from outside the trace (parameters such as "w1", inputs, the backward
//     seed) as ellipses in their dtype's color;
//   * edges from the event that made a tensor to each event that used it, labelled with the
//     tensor's dtype and shape and colored like it;
//   * forward and backward events in two clusters, and a legend of the dtypes that appear.
// Node names: e<seq> for events, t<id> for outside tensors, legend_<dtype> for legend swatches.
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "tinyamp/trace/trace.h"

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

std::string dtype_and_shape(const TensorInfo& t)
{
    std::string text = dtype_name(t.dtype);
    return text.append(" ").append(shape_str(t.shape));
}

std::string event_node(const Event& e) { return std::string("e").append(std::to_string(e.seq)); }
std::string tensor_node(const TensorInfo& t) { return std::string("t").append(std::to_string(t.id)); }

// The dtype an event's box is filled with: its (first) output's, else its first input's.
const TensorInfo* coloring_tensor(const Event& e)
{
    if (!e.outputs.empty()) return &e.outputs.front();
    if (!e.inputs.empty()) return &e.inputs.front();
    return nullptr;
}

struct NodeStyle {
    std::string shape;
    std::string style = "filled";
    std::string fill = "#ffffff";
    std::string text = "#1a1a1a";
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
    if (!tooltip.empty()) out << ", tooltip=" << quoted(tooltip);
    out << "];";
    return out.str();
}

std::vector<std::string> event_label(const Event& e)
{
    std::vector<std::string> lines;
    if (e.is_cast && !e.inputs.empty() && !e.outputs.empty()) {
        std::string cast = "cast ";
        lines.push_back(cast.append(dtype_name(e.inputs[0].dtype)).append("\u2192").append(dtype_name(e.outputs[0].dtype)));
    } else {
        lines.push_back(e.op);
    }
    for (const TensorInfo& out : e.outputs) {
        if (e.phase == Phase::forward) {
            lines.push_back(dtype_and_shape(out));
        } else {  // a gradient; AccumulateGrad names the .grad it wrote
            std::string line = out.name.empty() ? "grad" : out.name;
            lines.push_back(line.append(" ").append(dtype_and_shape(out)));
        }
    }
    if (e.outputs.empty() && e.phase == Phase::backward) lines.push_back("no gradients");
    if (e.cache == CacheEvent::hit) lines.push_back("cache hit");
    if (e.cache == CacheEvent::stored) lines.push_back("cache stored");
    // A cast's rule is its consumer's (shown on that op), so only ops show theirs.
    if (!e.policy.empty() && !e.is_cast) lines.push_back(e.policy);
    return lines;
}

std::string event_line(const Event& e)
{
    const TensorInfo* colored = coloring_tensor(e);
    const std::string shape = e.is_cast ? "cds" : "box";
    NodeStyle style = colored ? dtype_style(shape, colored->dtype) : NodeStyle{shape};
    if (e.phase == Phase::forward && !e.is_cast) style.style = "filled,rounded";
    if (e.cache == CacheEvent::hit) style.style = "filled,dashed";
    return node_line(event_node(e), style, event_label(e), e.why);
}

// A tensor no event of the trace made: a leaf (parameter, input, gradient seed) or, when the
// recording started after it was computed, a non-leaf (dashed).
std::string outside_tensor_line(const TensorInfo& t)
{
    NodeStyle style = dtype_style("ellipse", t.dtype);
    std::vector<std::string> label = {t.name.empty() ? std::string("tensor #").append(std::to_string(t.id)) : t.name, dtype_and_shape(t)};
    if (!t.is_leaf) {
        style.style = "filled,dashed";
        label.push_back("made before the trace");
    }
    return node_line(tensor_node(t), style, label, "");
}

std::string edge_line(const std::string& from, const std::string& to, const TensorInfo& t)
{
    std::ostringstream out;
    out << "  " << from << " -> " << to << " [label=" << quoted(dtype_and_shape(t)) << ", color=" << quoted(dtype_color(t.dtype).fill)
        << "];";
    return out.str();
}

void write_cluster(std::ostream& out, const char* name, const char* label, const std::vector<std::string>& lines)
{
    if (lines.empty()) return;
    out << "  subgraph cluster_" << name << " {\n    label=" << quoted(label) << ";\n";
    for (const std::string& line : lines) out << line << '\n';
    out << "  }\n";
}

std::vector<std::string> legend_lines(const std::vector<Event>& events)
{
    std::set<DType> seen;
    bool casts = false, hits = false;
    for (const Event& e : events) {
        for (const TensorInfo& t : e.inputs) seen.insert(t.dtype);
        for (const TensorInfo& t : e.outputs) seen.insert(t.dtype);
        casts = casts || e.is_cast;
        hits = hits || e.cache == CacheEvent::hit;
    }
    std::vector<std::string> lines, names;
    for (const DType d : kAllDTypes) {  // in the table's order, so every picture lists them alike
        if (!seen.count(d)) continue;
        names.push_back(std::string("legend_") + dtype_name(d));
        lines.push_back(node_line(names.back(), dtype_style("box", d), {dtype_name(d)}, ""));
    }
    if (casts) {
        names.push_back("legend_cast");
        lines.push_back(node_line(names.back(), NodeStyle{"cds"}, {"autocast cast"}, ""));
    }
    if (hits) {
        NodeStyle dashed{"box"};
        dashed.style = "filled,dashed";
        names.push_back("legend_cache_hit");
        lines.push_back(node_line(names.back(), dashed, {"cast cache hit"}, ""));
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

}  // namespace

std::string Trace::to_dot() const
{
    std::vector<std::string> forward, backward, edges;
    std::map<std::uint64_t, std::string> producer;  // tensor id -> the node that made it last
    std::set<std::uint64_t> outside;                // tensor ids already drawn as their own node
    for (const Event& e : events_) {
        std::vector<std::string>& cluster = e.phase == Phase::forward ? forward : backward;
        for (const TensorInfo& in : e.inputs) {
            auto made = producer.find(in.id);
            if (made != producer.end()) {
                edges.push_back(edge_line(made->second, event_node(e), in));
                continue;
            }
            if (outside.insert(in.id).second) cluster.push_back(outside_tensor_line(in));
            edges.push_back(edge_line(tensor_node(in), event_node(e), in));
        }
        cluster.push_back(event_line(e));
        // After the inputs: an op that hands back its input (x.to(x.dtype())) is drawn after it.
        for (const TensorInfo& out : e.outputs) producer[out.id] = event_node(e);
    }

    std::ostringstream out;
    out << "digraph tinyamp_trace {\n"
        << "  graph [rankdir=TB, fontname=\"Helvetica\", label=" << quoted(std::to_string(events_.size()).append(" events")) << "];\n"
        << "  node [fontname=\"Helvetica\", fontsize=11];\n"
        << "  edge [fontname=\"Helvetica\", fontsize=9];\n";
    write_cluster(out, "forward", "forward", forward);
    write_cluster(out, "backward", "backward", backward);
    write_cluster(out, "legend", "dtypes", legend_lines(events_));
    for (const std::string& line : edges) out << line << '\n';
    out << "}\n";
    return out.str();
}

}  // namespace tinyamp::trace
