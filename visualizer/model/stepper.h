#pragma once
// The visualizer's timeline: which events of a trace are shown. Stepping forward reveals one
// event at a time, through the forward pass and then the backward pass; stepping back hides
// the last one. Play advances on its own at `speed` events per second. No GUI code: tests drive
// it exactly as the buttons do.
#include <cstddef>
#include <optional>
#include <vector>

#include "tinyamp/trace/trace_graph.h"

namespace tinyamp::viz {

class Stepper {
public:
    /// `graph` must outlive the stepper. Starts with every event shown (position == event_count()).
    /// Throws Error(value) when `event_count` is not the number of events the graph was built from.
    explicit Stepper(const trace::TraceGraph& graph, std::size_t event_count);

    std::size_t event_count() const { return event_count_; }
    /// How many events are shown: 0 (none) .. event_count() (all).
    std::size_t position() const { return position_; }
    void seek(std::size_t position);   ///< clamped to [0, event_count()]; pauses
    bool step_forward();               ///< shows one more event; false (and no change) at the end
    bool step_back();                  ///< hides the last shown event; false at the start
    void to_start() { seek(0); }
    void to_end() { seek(event_count_); }
    /// Shows the whole forward pass and nothing of the backward pass: seeks to the number of
    /// forward events (a trace records the forward pass before the backward pass).
    void to_backward_start();

    /// The last shown event (an index into Trace::events()), if any.
    std::optional<std::size_t> current_event() const;
    /// Its graph node, or -1 when nothing is shown.
    int current_node() const;
    /// Whether a node is shown: an event node once its event is; a collapsed module once its first
    /// event is; a tensor node once any event using it is.
    /// Throws Error(index) for a node outside the graph.
    bool node_shown(int node) const;
    /// Whether an edge is shown: once its consumer is. Throws Error(index) for an edge outside the graph.
    bool edge_shown(int edge) const;

    void play();                   ///< from the start when at the end
    void pause() { playing_ = false; }
    bool playing() const { return playing_; }
    void set_speed(double events_per_second);  ///< > 0
    double speed() const { return speed_; }
    /// While playing: steps forward as `seconds` of wall time pass; pauses at the end.
    void advance(double seconds);

private:
    const trace::TraceGraph* graph_;
    std::size_t event_count_;
    std::size_t position_;
    bool playing_ = false;
    double speed_ = 4.0;
    double pending_ = 0.0;  // seconds accumulated towards the next step
    std::size_t forward_events_ = 0;       // where to_backward_start() seeks
    std::vector<std::size_t> shown_from_;  // per node: the position from which it is shown
};

}  // namespace tinyamp::viz
