#pragma once
// The graph view: the trace graph as Graphviz laid it out, drawn with ImGui's draw lists.
// Nodes are filled with their dtype's color (the legend in the corner), autocast's casts are
// tag shapes with a magenta outline, parameters have a gold outline, cast-cache hits a dashed
// border and the casts the cache stored a white dot. Events the timeline has not reached yet are
// drawn faint. Drag to pan, wheel to zoom,
// click a node to inspect it, hover an edge to read the dtype and shape that flows along it.
#include <imgui.h>

#include "visualizer/app/document.h"

namespace tinyamp::viz {

struct GraphCamera {
    ImVec2 offset{0, 0};  ///< screen pixels from the canvas' top-left to the layout's origin
    float zoom = 1.0f;    ///< screen pixels per Graphviz point
    bool fit_pending = true;  ///< fit the whole graph into the canvas at the next frame
};

/// Draws into the current window's remaining area. Clicking a node selects it in `document`.
void draw_graph_view(Document& document, GraphCamera& camera, ImFont* graph_font);

}  // namespace tinyamp::viz
