// Graphviz's `dot` layout, run in-process through libgvc on the DOT text of Trace::to_dot(), and
// read back through the cgraph API into plain structs. Graphviz works with the origin at the
// bottom left and y growing upwards; everything here is flipped to y-down on the way out.
#include "visualizer/model/layout.h"

#include <gvc.h>

#include <charconv>
#include <mutex>
#include <string_view>

namespace tinyamp::viz {
namespace {

constexpr const char* kSameTrace = "lay out the DOT of the same trace the graph was built from (Trace::to_dot())";

// Graphviz keeps global state (its error buffer, plugin tables): one layout at a time, and the
// context (which loads the plugins) made once for the life of the program.
std::mutex& graphviz_mutex()
{
    static std::mutex mutex;
    return mutex;
}

#ifdef TINYAMP_GRAPHVIZ_BUILTIN_PLUGINS
// The web build's Graphviz has no plugin loader: its plugins are linked in, listed in this table
// (visualizer/web/graphviz_text_layout.cpp).
extern "C" lt_symlist_t lt_preloaded_symbols[];
#endif

GVC_t* graphviz_context()
{
#ifdef TINYAMP_GRAPHVIZ_BUILTIN_PLUGINS
    static GVC_t* const context = gvContextPlugins(lt_preloaded_symbols, 0);
#else
    static GVC_t* const context = gvContext();
#endif
    return context;
}

// While alive, Graphviz's messages ("Error: syntax error in line 2 ...") are collected rather
// than printed, so that a failure can say what Graphviz said.
class GraphvizMessages {
public:
    GraphvizMessages() : previous_(agseterrf(&collect)) { collected().clear(); }
    ~GraphvizMessages() { agseterrf(previous_); }
    GraphvizMessages(const GraphvizMessages&) = delete;
    GraphvizMessages& operator=(const GraphvizMessages&) = delete;

    /// What Graphviz said, as one line ("" when nothing).
    static std::string text()
    {
        std::string line = collected();
        for (char& c : line)
            if (c == '\n') c = ' ';
        while (!line.empty() && line.back() == ' ') line.pop_back();
        return line.empty() ? line : ": " + line;
    }

private:
    static std::string& collected()
    {
        static std::string messages;  // guarded by the Graphviz mutex, as all of this is
        return messages;
    }
    static int collect(char* message)
    {
        collected().append(message);
        return 0;
    }
    agusererrf previous_;
};

// Owns a laid-out graph: frees the layout and the graph however the reading ends.
class LaidOutGraph {
public:
    LaidOutGraph(GVC_t* context, const std::string& dot) : context_(context)
    {
        const GraphvizMessages messages;
        graph_ = agmemread(dot.c_str());
        TINYAMP_CHECK(graph_, value, "Graphviz could not read the DOT text", GraphvizMessages::text(),
                      "; pass the text of Trace::to_dot()");
        if (gvLayout(context_, graph_, "dot") != 0) {
            agclose(graph_);  // the destructor does not run for a constructor that throws
            TINYAMP_FAIL(value, "Graphviz's dot layout failed on the trace's graph", GraphvizMessages::text());
        }
    }
    ~LaidOutGraph()
    {
        gvFreeLayout(context_, graph_);
        agclose(graph_);
    }
    LaidOutGraph(const LaidOutGraph&) = delete;
    LaidOutGraph& operator=(const LaidOutGraph&) = delete;

    Agraph_t* get() const { return graph_; }

private:
    GVC_t* context_;
    Agraph_t* graph_ = nullptr;
};

// Graphviz's points, turned to y-down with the origin at the drawing's top left.
struct Flip {
    boxf bb;
    Vec2 operator()(pointf p) const { return {float(p.x - bb.LL.x), float(bb.UR.y - p.y)}; }
};

NodeBox place_node(Agnode_t* n, const Flip& flip)
{
    // ND_width/ND_height are in inches; the coordinates are in points (1/72 inch).
    return {flip(ND_coord(n)), {float(ND_width(n) * 72.0), float(ND_height(n) * 72.0)}};
}

EdgeCurve route_edge(Agedge_t* e, const Flip& flip)
{
    EdgeCurve curve;
    const splines* spl = ED_spl(e);
    if (spl && spl->size > 0) {
        const bezier& bz = spl->list[0];
        for (int i = 0; i < bz.size; ++i) curve.points.push_back(flip(bz.list[i]));
        // eflag: an arrowhead at the head, from the curve's end to ep; sflag: at the tail (dir=back).
        curve.has_arrow = bz.eflag || bz.sflag;
        if (bz.eflag)
            curve.arrow_tip = flip(bz.ep);
        else if (bz.sflag)
            curve.arrow_tip = flip(bz.sp);
    }
    if (const textlabel_t* label = ED_label(e))
        curve.label_pos = flip(label->pos);
    else if (!curve.points.empty())
        curve.label_pos = curve.points[curve.points.size() / 2];
    return curve;
}

// The index k of an edge whose id is "edge<k>", or -1 for any other edge (the legend's).
int edge_index(Agedge_t* e)
{
    const char* id = agget(e, const_cast<char*>("id"));
    if (!id) return -1;
    const std::string_view text(id);
    constexpr std::string_view prefix = "edge";
    if (text.substr(0, prefix.size()) != prefix) return -1;
    int k = -1;
    const char* first = text.data() + prefix.size();
    const char* last = text.data() + text.size();
    const auto [end, error] = std::from_chars(first, last, k);
    return error == std::errc() && end == last && first != last ? k : -1;
}

// The module of a cluster named "m<k>f" or "m<k>b" (trace_dot.cpp), or "".
std::string cluster_module(std::string_view name, const trace::TraceGraph& graph)
{
    if (name.size() < 3 || name.front() != 'm' || (name.back() != 'f' && name.back() != 'b')) return "";
    std::size_t k = 0;
    const char* last = name.data() + name.size() - 1;
    const auto [end, error] = std::from_chars(name.data() + 1, last, k);
    return error == std::errc() && end == last && k < graph.modules.size() ? graph.modules[k] : "";
}

// Every cluster, outer ones before the clusters inside them (Graphviz nests them).
void read_clusters(Agraph_t* g, const Flip& flip, const trace::TraceGraph& graph, std::vector<ClusterBox>& clusters)
{
    // Graphviz numbers clusters from 1.
    for (int i = 1; i <= GD_n_cluster(g); ++i) {
        Agraph_t* sub = GD_clust(g)[i];
        std::string_view name = agnameof(sub);
        constexpr std::string_view prefix = "cluster_";
        if (name.substr(0, prefix.size()) == prefix) name.remove_prefix(prefix.size());
        if (name == "legend") continue;
        ClusterBox box;
        box.name = std::string(name);
        box.module = cluster_module(name, graph);
        if (const textlabel_t* label = GD_label(sub); label && label->text) box.label = label->text;
        // y flips, so the box's top (min) comes from Graphviz's upper corner.
        box.min = flip({GD_bb(sub).LL.x, GD_bb(sub).UR.y});
        box.max = flip({GD_bb(sub).UR.x, GD_bb(sub).LL.y});
        clusters.push_back(std::move(box));
        read_clusters(sub, flip, graph, clusters);
    }
}

}  // namespace

Layout layout_graph(const trace::TraceGraph& graph, const std::string& dot)
{
    const std::lock_guard<std::mutex> lock(graphviz_mutex());
    const LaidOutGraph laid_out(graphviz_context(), dot);
    Agraph_t* g = laid_out.get();

    Layout layout;
    const Flip flip{GD_bb(g)};
    layout.size = {float(flip.bb.UR.x - flip.bb.LL.x), float(flip.bb.UR.y - flip.bb.LL.y)};

    layout.nodes.reserve(graph.nodes.size());
    for (const trace::GraphNode& node : graph.nodes) {
        Agnode_t* n = agnode(g, const_cast<char*>(node.name.c_str()), 0);
        TINYAMP_CHECK(n, value, "the DOT text has no node named ", node.name, " (graph node ", layout.nodes.size(),
                      "); ", kSameTrace);
        layout.nodes.push_back(place_node(n, flip));
    }

    std::vector<bool> routed(graph.edges.size(), false);
    layout.edges.resize(graph.edges.size());
    for (Agnode_t* n = agfstnode(g); n; n = agnxtnode(g, n)) {
        for (Agedge_t* e = agfstout(g, n); e; e = agnxtout(g, e)) {
            const int k = edge_index(e);
            if (k < 0 || std::size_t(k) >= graph.edges.size()) continue;
            const trace::GraphEdge& expected = graph.edges[std::size_t(k)];
            TINYAMP_CHECK(graph.nodes[std::size_t(expected.from)].name == agnameof(agtail(e)) &&
                              graph.nodes[std::size_t(expected.to)].name == agnameof(aghead(e)),
                          value, "the DOT's edge", k, " runs ", agnameof(agtail(e)), " -> ", agnameof(aghead(e)), " but graph edge ", k,
                          " runs ", graph.nodes[std::size_t(expected.from)].name, " -> ", graph.nodes[std::size_t(expected.to)].name,
                          "; ", kSameTrace);
            layout.edges[std::size_t(k)] = route_edge(e, flip);
            routed[std::size_t(k)] = true;
        }
    }
    for (std::size_t k = 0; k < routed.size(); ++k)
        TINYAMP_CHECK(routed[k], value, "the DOT text has no edge with id=\"edge", k, "\" (", graph.nodes[std::size_t(graph.edges[k].from)].name,
                      " -> ", graph.nodes[std::size_t(graph.edges[k].to)].name,
                      "); ", kSameTrace);

    read_clusters(g, flip, graph, layout.clusters);
    return layout;
}

}  // namespace tinyamp::viz
