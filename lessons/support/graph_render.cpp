#include "lessons/support/graph_render.h"

#include <mutex>
#include <stdexcept>

#ifdef TINYAMP_LESSONS_GRAPHVIZ
#include <gvc.h>
#endif

namespace tinyamp::lesson {

bool graphviz_linked()
{
#ifdef TINYAMP_LESSONS_GRAPHVIZ
    return true;
#else
    return false;
#endif
}

std::optional<std::string> dot_to_svg(const std::string& dot)
{
#ifdef TINYAMP_LESSONS_GRAPHVIZ
    // Graphviz keeps global state (its error buffer, plugin tables): one layout at a time.
    static std::mutex graphviz_mutex;
    const std::lock_guard<std::mutex> lock(graphviz_mutex);
    static GVC_t* const context = gvContext();  // loads the plugins once; lives as long as the program
    Agraph_t* graph = agmemread(dot.c_str());
    if (!graph) throw std::runtime_error("Graphviz could not read the DOT text (agmemread failed)");
    std::string svg;
    if (gvLayout(context, graph, "dot") == 0) {
        char* data = nullptr;
        unsigned int length = 0;
        if (gvRenderData(context, graph, "svg", &data, &length) == 0 && data) svg.assign(data, length);
        gvFreeRenderData(data);
        gvFreeLayout(context, graph);
    }
    agclose(graph);
    if (svg.empty()) throw std::runtime_error("Graphviz could not lay out or render the graph as SVG");
    return svg;
#else
    (void)dot;
    return std::nullopt;
#endif
}

}  // namespace tinyamp::lesson
