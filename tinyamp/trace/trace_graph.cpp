// The one builder of a trace's graph (trace_graph.h): Trace::to_dot() writes what it builds, and
// the visualizer lays out and draws the same nodes and edges.
#include "tinyamp/trace/trace_graph.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "tinyamp/trace/trace_modules.h"

namespace tinyamp::trace {
namespace {

std::string dtype_and_shape(const TensorInfo& t)
{
    std::string text = dtype_name(t.dtype);
    return text.append(" ").append(shape_str(t.shape));
}

// Bytes as a node's label says them: "10 B", "5.5 KiB", "128 KiB", "1.5 MiB".
std::string bytes_text(std::int64_t bytes)
{
    static const char* const units[] = {"B", "KiB", "MiB", "GiB"};
    double value = double(bytes);
    int unit = 0;
    for (; value >= 1024 && unit < 3; ++unit) value /= 1024;
    // snprintf, not std::string surgery: GCC 12 raises a false -Wrestrict on the latter here.
    char text[48];
    const long long tenths = std::llround(value * 10);
    if (unit == 0)
        std::snprintf(text, sizeof text, "%lld B", static_cast<long long>(bytes));
    else if (tenths % 10 == 0)
        std::snprintf(text, sizeof text, "%lld %s", tenths / 10, units[unit]);
    else
        std::snprintf(text, sizeof text, "%lld.%lld %s", tenths / 10, tenths % 10, units[unit]);
    return text;
}

// A collective's lines: its name, how its data travelled and how much this rank sent ("SUM in
// bf16, 128 KiB"), and the dtype its results came back in when that is another.
std::vector<std::string> collective_label(const Event& e)
{
    std::vector<std::string> lines = {e.op, collective_how(*e.collective).append(", ").append(bytes_text(e.collective->bytes))};
    if (!e.outputs.empty() && e.outputs.front().dtype != e.collective->dtype)
        lines.push_back(std::string("back in ").append(dtype_name(e.outputs.front().dtype)));
    return lines;
}

// The lines of an event's node: the op (or "cast f32→bf16"), each output's dtype and shape (for a
// gradient, the .grad it is when it has a name), the cache event, and an op's autocast rule; a
// collective's are collective_label's (the inspector lists what it took and gave).
std::vector<std::string> event_label(const Event& e)
{
    if (e.collective) return collective_label(e);
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

GraphNode event_node(const Event& e, int event_index)
{
    GraphNode node;
    node.name = std::string("e").append(std::to_string(e.seq));
    node.kind = e.collective ? NodeKind::collective : e.is_cast ? NodeKind::cast : NodeKind::op;
    node.phase = e.phase;
    node.event = event_index;
    // The fill: the (first) output's dtype, else the first input's; a collective's is the dtype
    // its data travelled in (bf16 for gradients compressed from f32).
    const TensorInfo* colored = !e.outputs.empty() ? &e.outputs.front() : !e.inputs.empty() ? &e.inputs.front() : nullptr;
    node.has_dtype = colored != nullptr || e.collective;
    if (colored) node.dtype = colored->dtype;
    if (e.collective) node.dtype = e.collective->dtype;
    node.label = event_label(e);
    node.tooltip = e.why;
    node.cache = e.cache;
    node.module = e.module;
    return node;
}

// A tensor no event of the trace made: a leaf (parameter, input, gradient seed) or, when the
// recording started after it was computed, a non-leaf.
GraphNode outside_tensor_node(const TensorInfo& t, Phase first_use)
{
    GraphNode node;
    node.name = std::string("t").append(std::to_string(t.id));
    node.kind = NodeKind::tensor;
    node.phase = first_use;
    node.tensor = t;
    node.has_dtype = true;
    node.dtype = t.dtype;
    node.label = {t.name.empty() ? std::string("tensor #").append(std::to_string(t.id)) : t.name, dtype_and_shape(t)};
    if (!t.is_leaf) node.label.push_back("made before the trace");
    node.is_parameter = t.is_leaf && t.requires_grad;
    return node;
}

}  // namespace

const char* node_kind_name(NodeKind kind)
{
    switch (kind) {
    case NodeKind::op: return "op";
    case NodeKind::cast: return "cast";
    case NodeKind::tensor: return "tensor";
    case NodeKind::module: return "module";
    case NodeKind::collective: return "collective";
    }
    return "op";  // unreachable: every enumerator is handled above
}

int TraceGraph::node_of_event(std::size_t event_index) const
{
    if (event_index < event_nodes.size()) return event_nodes[event_index];
    // A graph put together by hand may leave event_nodes out: look the event up.
    for (std::size_t i = 0; i < nodes.size(); ++i)
        if (nodes[i].event >= 0 && std::size_t(nodes[i].event) == event_index) return int(i);
    return -1;
}

int TraceGraph::module_index(std::string_view path) const
{
    for (std::size_t i = 0; i < modules.size(); ++i)
        if (modules[i] == path) return int(i);
    return -1;
}

std::vector<std::string> split_path(std::string_view path)
{
    std::vector<std::string> parts;
    while (!path.empty()) {
        const std::size_t dot = path.find('.');
        parts.emplace_back(path.substr(0, dot));
        path = dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
    }
    return parts;
}

int TraceGraph::find(std::string_view name) const
{
    for (std::size_t i = 0; i < nodes.size(); ++i)
        if (nodes[i].name == name) return int(i);
    return -1;
}

TraceGraph build_graph(const Trace& trace, const GraphOptions& options)
{
    TraceGraph graph;
    std::map<std::uint64_t, int> producer;  // tensor id -> the node that made it last
    std::map<std::uint64_t, int> outside;   // tensor id -> its own node, for tensors no event made
    std::set<DType> seen, scaled;  // the dtypes of inputs and outputs; of scaled casts
    const std::vector<Event>& events = trace.events();
    for (std::size_t i = 0; i < events.size(); ++i) {
        const Event& e = events[i];
        // Each input's source: its producer, else its own node, added before this event's node.
        std::vector<int> sources;
        for (const TensorInfo& in : e.inputs) {
            if (auto made = producer.find(in.id); made != producer.end()) {
                sources.push_back(made->second);
                continue;
            }
            auto [own, added] = outside.try_emplace(in.id, int(graph.nodes.size()));
            if (added) {
                graph.nodes.push_back(outside_tensor_node(in, e.phase));
                if (graph.nodes.back().is_parameter) graph.nodes.back().module = e.module;  // a weight belongs to its layer
            }
            sources.push_back(own->second);
        }
        const int node = int(graph.nodes.size());
        graph.nodes.push_back(event_node(e, int(i)));
        graph.event_nodes.push_back(node);
        for (std::size_t slot = 0; slot < e.inputs.size(); ++slot)
            graph.edges.push_back(GraphEdge{sources[slot], node, int(slot), e.inputs[slot], dtype_and_shape(e.inputs[slot])});
        // After the inputs: an op that hands back its input (x.to(x.dtype())) is drawn after it.
        for (const TensorInfo& out : e.outputs) producer[out.id] = node;

        for (const TensorInfo& t : e.inputs) seen.insert(t.dtype);
        for (const TensorInfo& t : e.outputs) seen.insert(t.dtype);
        for (const ScaledCast& c : e.scaled_casts) scaled.insert(c.dtype);
        if (e.collective) seen.insert(e.collective->dtype);
        graph.has_casts = graph.has_casts || e.is_cast;
        graph.has_collectives = graph.has_collectives || e.collective.has_value();
        graph.has_cache_hits = graph.has_cache_hits || e.cache == CacheEvent::hit;
    }
    for (const DType d : kAllDTypes)  // in the table's order, so every legend lists them alike
        if (seen.count(d)) graph.dtypes.push_back(d);
    for (const DType d : kAllDTypes)
        if (scaled.count(d)) graph.scaled_cast_dtypes.push_back(d);
    list_modules(graph, trace);
    for (GraphNode& node : graph.nodes)
        if (const int k = graph.module_index(node.module); k >= 0) node.module_type = graph.module_types[std::size_t(k)];
    if (!options.collapsed.empty()) collapse_modules(graph, trace, options.collapsed);
    return graph;
}

}  // namespace tinyamp::trace
