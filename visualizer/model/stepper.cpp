// The timeline of the visualizer: a position among the trace's events, moved by the buttons
// (step, seek, play) and by the clock while playing.
#include "visualizer/model/stepper.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tinyamp::viz {
namespace {

// Per node, the position from which it is shown: one past its event for an event node, one past
// its first event for a collapsed module, one past its first consumer's event for an outside
// tensor (a tensor appears with its first use).
std::vector<std::size_t> shown_from_positions(const trace::TraceGraph& graph)
{
    constexpr std::size_t never = std::numeric_limits<std::size_t>::max();  // a tensor nothing uses (build_graph makes none)
    std::vector<std::size_t> shown_from(graph.nodes.size(), never);
    for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
        const trace::GraphNode& node = graph.nodes[i];
        if (node.event >= 0) shown_from[i] = std::size_t(node.event) + 1;
        for (const int event : node.events) shown_from[i] = std::min(shown_from[i], std::size_t(event) + 1);
    }
    for (const trace::GraphEdge& edge : graph.edges) {
        std::size_t& from = shown_from[std::size_t(edge.from)];
        if (graph.nodes[std::size_t(edge.from)].kind == trace::NodeKind::tensor) from = std::min(from, shown_from[std::size_t(edge.to)]);
    }
    return shown_from;
}

}  // namespace

Stepper::Stepper(const trace::TraceGraph& graph, std::size_t event_count)
    : graph_(&graph), event_count_(event_count), position_(event_count), shown_from_(shown_from_positions(graph))
{
    std::size_t events = 0;
    for (const trace::GraphNode& node : graph.nodes) {
        const std::size_t own = node.event >= 0 ? 1 : node.events.size();  // a collapsed module stands for several
        events += own;
        if (node.phase == trace::Phase::forward) forward_events_ += own;
    }
    TINYAMP_CHECK(events == event_count, value, "Stepper got a graph of ", events, " events but an event count of ", event_count,
                  "; pass the size of the trace the graph was built from (trace.events().size())");
}

void Stepper::seek(std::size_t position)
{
    position_ = std::min(position, event_count_);
    playing_ = false;
    pending_ = 0;
}

bool Stepper::step_forward()
{
    if (position_ == event_count_) return false;
    ++position_;
    return true;
}

bool Stepper::step_back()
{
    if (position_ == 0) return false;
    --position_;
    return true;
}

void Stepper::to_backward_start() { seek(forward_events_); }

std::optional<std::size_t> Stepper::current_event() const
{
    if (position_ == 0) return std::nullopt;
    return position_ - 1;
}

int Stepper::current_node() const { return position_ == 0 ? -1 : graph_->node_of_event(position_ - 1); }

bool Stepper::node_shown(int node) const
{
    TINYAMP_CHECK(node >= 0 && std::size_t(node) < graph_->nodes.size(), index, "Stepper::node_shown: node ", node,
                  " is outside the graph's ", graph_->nodes.size(), " nodes");
    return position_ >= shown_from_[std::size_t(node)];
}

bool Stepper::edge_shown(int edge) const
{
    TINYAMP_CHECK(edge >= 0 && std::size_t(edge) < graph_->edges.size(), index, "Stepper::edge_shown: edge ", edge,
                  " is outside the graph's ", graph_->edges.size(), " edges");
    return node_shown(graph_->edges[std::size_t(edge)].to);
}

void Stepper::play()
{
    if (position_ == event_count_) position_ = 0;
    playing_ = event_count_ > 0;  // nothing to play in an empty trace
    pending_ = 0;
}

void Stepper::set_speed(double events_per_second)
{
    TINYAMP_CHECK(events_per_second > 0 && std::isfinite(events_per_second), value, "Stepper::set_speed(", events_per_second,
                  "): the speed is in events per second and must be positive and finite");
    speed_ = events_per_second;
}

void Stepper::advance(double seconds)
{
    TINYAMP_CHECK(seconds >= 0 && std::isfinite(seconds), value, "Stepper::advance(", seconds,
                  "): pass the wall time since the last frame, in seconds (>= 0)");
    if (!playing_) return;
    pending_ += seconds;
    // A step is due every 1/speed seconds. The tolerance (a billionth of a step) absorbs rounding,
    // so that ten frames of 0.1 s at 1 event/s make exactly one step.
    const double interval = 1.0 / speed_;
    while (pending_ >= interval * (1 - 1e-9) && step_forward()) pending_ = std::max(0.0, pending_ - interval);
    if (position_ == event_count_) {
        playing_ = false;
        pending_ = 0;
    }
}

}  // namespace tinyamp::viz
