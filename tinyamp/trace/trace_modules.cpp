// Grouping a trace's graph by the nn::Module each event ran in (trace_modules.h).
#include "tinyamp/trace/trace_modules.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

namespace tinyamp::trace {
namespace {

std::string plural(int n, const char* one, const char* many) { return std::to_string(n) + " " + (n == 1 ? one : many); }

// The outermost collapsed module that `module` is or lies in, or "" when none is collapsed.
std::string collapsed_owner(const std::string& module, const std::set<std::string>& collapsed)
{
    std::string prefix;
    for (const std::string& part : split_path(module)) {
        prefix.append(prefix.empty() ? "" : ".").append(part);
        if (collapsed.count(prefix)) return prefix;
    }
    return "";
}

GraphNode module_node(const TraceGraph& graph, const std::string& module, Phase phase)
{
    const int k = graph.module_index(module);
    GraphNode node;
    node.name = std::string("m").append(std::to_string(k)).append(phase == Phase::forward ? "f" : "b");
    node.kind = NodeKind::module;
    node.phase = phase;
    node.module = module;
    node.module_type = graph.module_types[std::size_t(k)];
    return node;
}

// "0 · Linear", the dtype and shape of what it hands on, and the counts the badge shows.
void finish_module_node(GraphNode& node, const TensorInfo* last_output)
{
    node.label = {node.module_type.empty() ? node.module : node.module + " \u00b7 " + node.module_type};
    if (last_output) node.label.push_back(std::string(dtype_name(last_output->dtype)).append(" ").append(shape_str(last_output->shape)));
    std::string counts = plural(int(node.events.size()), "event", "events");
    if (node.casts > 0) counts += ", " + plural(node.casts, "cast", "casts");
    if (node.cache_hits > 0) counts += ", " + plural(node.cache_hits, "cache hit", "cache hits");
    node.label.push_back(counts);
    node.tooltip = "module " + node.label.front() + ", collapsed: its " + std::to_string(node.events.size()) + " " +
                   phase_name(node.phase) + " events in one box (click to expand)";
}

}  // namespace

void list_modules(TraceGraph& graph, const Trace& trace)
{
    for (const Event& e : trace.events()) {
        const std::vector<std::string> names = split_path(e.module), types = split_path(e.module_types);
        std::string path;
        for (std::size_t i = 0; i < names.size(); ++i) {
            path.append(path.empty() ? "" : ".").append(names[i]);
            const std::string type = types.size() == names.size() ? types[i] : "";  // a type with a dot of its own: unknown
            int k = graph.module_index(path);
            if (k < 0) {
                k = int(graph.modules.size());
                graph.modules.push_back(path);
                graph.module_types.emplace_back();
            }
            if (graph.module_types[std::size_t(k)].empty()) graph.module_types[std::size_t(k)] = type;
        }
    }
}

namespace {

// `graph`'s edges into `out`, whose node i was `graph`'s nodes moved_to[i]. Edges inside a box
// disappear; a tensor that goes into a box is one edge into it, however many of the box's events
// use it.
void move_edges(const TraceGraph& graph, const std::vector<int>& moved_to, TraceGraph& out)
{
    std::set<std::tuple<int, int, std::uint64_t>> joined;
    for (const GraphEdge& edge : graph.edges) {
        GraphEdge moved = edge;
        moved.from = moved_to[std::size_t(edge.from)];
        moved.to = moved_to[std::size_t(edge.to)];
        if (moved.from == moved.to) continue;
        const bool into_box = out.nodes[std::size_t(moved.to)].kind == NodeKind::module;
        if (into_box && !joined.emplace(moved.from, moved.to, edge.tensor.id).second) continue;
        out.edges.push_back(std::move(moved));
    }
}

// Each box of `out` (its index in `boxes`) filled like what leaves it (a backward Linear's box
// passes on a bf16 gradient, even though the .grad it wrote last is f32); a box nothing leaves,
// like its last event's output (`last_output`). Then its label and tooltip.
void fill_module_nodes(TraceGraph& out, const std::map<std::pair<std::string, Phase>, int>& boxes, const std::map<int, const TensorInfo*>& last_output)
{
    for (const auto& entry : boxes) {
        const int index = entry.second;  // a plain name: lambdas cannot capture structured bindings before C++20's P1091 (Clang 14)
        const auto leaving = std::find_if(out.edges.begin(), out.edges.end(), [&](const GraphEdge& e) { return e.from == index; });
        const auto last = last_output.find(index);
        const TensorInfo* shown = leaving != out.edges.end() ? &leaving->tensor : last != last_output.end() ? last->second : nullptr;
        GraphNode& box = out.nodes[std::size_t(index)];
        if (shown) {
            box.has_dtype = true;
            box.dtype = shown->dtype;
        }
        finish_module_node(box, shown);
    }
}

}  // namespace

void collapse_modules(TraceGraph& graph, const Trace& trace, const std::set<std::string>& collapsed)
{
    // Everything but the nodes, edges and event_nodes (rebuilt below) carries over, so a field
    // added to TraceGraph later is kept without being named here.
    TraceGraph out = graph;
    out.nodes.clear();
    out.edges.clear();
    out.event_nodes.clear();

    std::vector<int> moved_to(graph.nodes.size());
    std::map<std::pair<std::string, Phase>, int> module_nodes;  // (module, phase) -> its node in `out`
    std::map<int, const TensorInfo*> last_output;               // module node -> its last event's first output
    for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
        const GraphNode& node = graph.nodes[i];
        const std::string owner = collapsed_owner(node.module, collapsed);
        if (owner.empty()) {
            moved_to[i] = int(out.nodes.size());
            out.nodes.push_back(node);
            continue;
        }
        const auto [slot, added] = module_nodes.try_emplace({owner, node.phase}, int(out.nodes.size()));
        if (added) out.nodes.push_back(module_node(graph, owner, node.phase));
        moved_to[i] = slot->second;
        if (node.event < 0) continue;  // a weight inside the module: it is part of the box
        GraphNode& box = out.nodes[std::size_t(slot->second)];
        const Event& e = trace.events()[std::size_t(node.event)];
        box.events.push_back(node.event);
        box.casts += e.is_cast ? 1 : 0;
        box.cache_hits += e.cache == CacheEvent::hit ? 1 : 0;
        if (!e.outputs.empty()) last_output[slot->second] = &e.outputs.front();
    }

    move_edges(graph, moved_to, out);
    for (const int node : graph.event_nodes) out.event_nodes.push_back(moved_to[std::size_t(node)]);
    fill_module_nodes(out, module_nodes, last_output);
    graph = std::move(out);
}

}  // namespace tinyamp::trace
