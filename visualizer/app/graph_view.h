#pragma once
// The graph view: the trace graph as Graphviz laid it out, drawn with ImGui's draw lists.
// Nodes are filled with their dtype's color (the legend in the corner), autocast's casts are
// tag shapes with a magenta outline, parameters have a gold outline, cast-cache hits a dashed
// border and the casts the cache stored a white dot. Events the timeline has not reached yet are
// drawn faint. Drag to pan, wheel to zoom about the cursor, F (or Home, or the Fit button) to see
// it all (never smaller than the zoom at which every label can be read: see node_face.h), the
// minimap under the legend to jump (the first view keeps the corner they take clear); the view follows the timeline's node when it would
// leave the canvas (a toolbar switch). Click a node to inspect it, hover an edge to read the dtype
// and shape that flows along it.
#include <imgui.h>

#include <optional>
#include <vector>

#include "visualizer/app/document.h"
#include "visualizer/model/camera.h"
#include "visualizer/model/node_face.h"

namespace tinyamp::viz {

/// What the last frame drew, in window pixels (those of a screenshot): kept only when asked, for
/// `--node-boxes` (app/node_boxes.h), which a screenshot check reads.
struct DrawnFrame {
    struct Node {
        int index = -1;  ///< into the graph's nodes
        Rect box;        ///< its whole box
        NodeFace face;   ///< where its glyph and label went
        ImU32 fill = 0;  ///< its fill as drawn (faint ones blend with the canvas)
    };
    std::vector<Node> nodes;      ///< the nodes whose box lies wholly inside the canvas
    std::optional<Rect> legend;   ///< when shown
    std::optional<Rect> minimap;  ///< when shown
};

/// What the graph view remembers between frames: where it looks and the switches of its toolbar.
struct GraphCamera {
    Camera view;                  ///< canvas = view.offset + layout point * view.zoom
    bool fit_pending = true;      ///< fit the whole graph into the canvas at the next frame
    bool follow_timeline = true;  ///< pan to the timeline's current node when it leaves the canvas
    bool show_legend = true;      ///< the legend in the canvas' top-left corner (a fit keeps it clear)
    bool show_minimap = true;     ///< the minimap under the legend, while part of the graph is out of view
    int followed_node = -1;       ///< the current node when the view last followed it
    bool minimap_dragging = false;  ///< a press that began on the minimap: it moves the view, not the graph
    Vec2 canvas_origin;             ///< the canvas' top-left in window pixels, as last drawn (scripts click nodes with it)
    Vec2 canvas_size;               ///< its width and height, as last drawn
    bool center_first_view = false; ///< the first view only: centre it on the inspected node (--zoom)
    float zoom_after_fit = 1.0f;    ///< then, its zoom times this
    bool legend_folded = false;     ///< the legend shows only its "dtypes" header (a click on it toggles)
    bool record_drawn = false;      ///< keep `drawn` each frame
    DrawnFrame drawn;               ///< the last frame's node boxes, legend and minimap (when record_drawn)
};

/// Draws into the current window's remaining area. Clicking a node selects it in `document`.
void draw_graph_view(Document& document, GraphCamera& camera, ImFont* graph_font);

}  // namespace tinyamp::viz
