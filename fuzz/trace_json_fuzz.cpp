// libFuzzer target: trace::Trace::from_json on any text, then what tinyamp-viz does with a trace
// file: its graph, unfolded and with every module folded, and the DOT export. A trace that loads
// must write back (to_json) to JSON that loads and writes back the same.
#include <cstddef>
#include <cstdint>
#include <set>

#include <tinyamp/trace/trace.h>
#include <tinyamp/trace/trace_graph.h>

#include "fuzz/fuzz_support.h"

using namespace tinyamp;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string text(fuzz::as_text(data, size));
    trace::Trace loaded;
    if (!fuzz::loads([&] { loaded = trace::Trace::from_json(text); })) return 0;
    const std::string written = loaded.to_json();
    if (trace::Trace::from_json(written).to_json() != written) fuzz::violated("a loaded trace does not survive to_json and from_json unchanged");

    const trace::TraceGraph graph = trace::build_graph(loaded);
    const std::set<std::string> every_module(graph.modules.begin(), graph.modules.end());
    const trace::TraceGraph folded = trace::build_graph(loaded, {.collapsed = every_module});
    for (const trace::TraceGraph* g : {&graph, &folded})
        for (const trace::GraphEdge& e : g->edges)
            if (e.from < 0 || e.to < 0 || std::size_t(e.from) >= g->nodes.size() || std::size_t(e.to) >= g->nodes.size())
                fuzz::violated("build_graph made an edge to a node that does not exist");
    (void)trace::to_dot(loaded, {.collapsed = every_module, .module_clusters = true});
    return 0;
}
