#pragma once
/// \file
/// The module side of build_graph (trace_graph.h): which modules a trace's events ran in, and
/// the graph with chosen modules collapsed to one node per phase. Used by trace_graph.cpp only.
#include <set>
#include <string>

#include "tinyamp/trace/trace_graph.h"

namespace tinyamp::trace {

/// Fills graph.modules and graph.module_types from the events' Event::module and
/// Event::module_types: every path and the paths above it, in the order they first appear.
void list_modules(TraceGraph& graph, const Trace& trace);

/// Replaces the nodes of each collapsed module (and of the modules inside it) by one node per
/// phase, as trace_graph.h describes; edges inside a module's node are dropped, edges into and
/// out of it kept (one per tensor and input slot).
void collapse_modules(TraceGraph& graph, const Trace& trace, const std::set<std::string>& collapsed);

}  // namespace tinyamp::trace
