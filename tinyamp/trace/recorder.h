#pragma once
/// \file
/// The trace being recorded on this thread: a TraceRecorder makes a Trace the current one, and
/// NestedScope marks the inner ops (an op's own forward, backward formulas, autocast's casts)
/// that belong to an outer op's event.
///
/// Recording is off unless a TraceRecorder is alive on the thread; the dispatcher (forward ops
/// and autocast's casts) and the backward engine add the events, through explain/explain.h, and
/// tinyamp::distributed adds one per collective.

#include <iosfwd>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tinyamp/trace/event.h"

namespace tinyamp::trace {

/// A list of events, in the order they were recorded; fill it with a TraceRecorder.
class Trace {
public:
    const std::vector<Event>& events() const { return events_; }  ///< every event, oldest first
    void add(Event event);             ///< assigns seq: one more than the last event's
    void clear();                      ///< removes every event
    /// Remembers the module (path, type) whose forward op made autograd node `node`, so that the
    /// node's backward event names the same module. Kept while recording, never saved.
    void remember_module(const void* node, const std::string& path, const std::string& type);
    /// What remember_module noted for `node`, or nullptr.
    const std::pair<std::string, std::string>* module_of(const void* node) const;
    /// JSON: {"version": 5, "events": [...]} with every field above (dtypes as "f32", shapes as arrays,
    /// the histogram as {"lowest_exponent": e, "counts": [...]}, an event's scaled casts as
    /// "scaled_casts" and its collective as "collective", each left out when the event has none);
    /// trace_json.cpp describes the format.
    std::string to_json() const;
    /// Reads versions 5, 4 (no collectives), 3 (no scaled casts either), 2 (no module fields
    /// either: they read as "") and 1 (no histograms either: they read as empty). Throws
    /// Error(io) naming what is wrong and where.
    static Trace from_json(const std::string& text);
    /// Graphviz DOT: op nodes filled by their output dtype (dtype_color), cast nodes distinct,
    /// cache hits marked, leaf tensors as their own nodes, backward events in a second cluster,
    /// and a legend of the dtypes that appear. Node names: `e<seq>` for events, `t<id>` for tensors
    /// from outside the trace, `legend_<dtype>` for the legend (trace_dot.cpp describes the picture).
    /// The nodes and edges are those of build_graph() (trace_graph.h).
    std::string to_dot() const;

private:
    std::vector<Event> events_;
    std::unordered_map<const void*, std::pair<std::string, std::string>> node_modules_;
};

/// Every event, one line each (see operator<< for Event).
std::ostream& operator<<(std::ostream& out, const Trace& trace);

/// While alive, ops run "in" the module `name` (of type `type_name`): the events recorded get
/// the dotted path of every ModuleScope around them, outermost first ("4.attn"). A scope with an
/// empty name (the module called first, which has no parent to name it) adds nothing to the path.
/// nn::Module's operator() opens one while a trace records; nothing else needs to.
class ModuleScope {
public:
    /// Enters module `name` (which must outlive the scope: nn::Module passes its own name()) of
    /// type `type_name`; an empty name enters nothing.
    ModuleScope(const std::string& name, const std::string& type_name);
    ~ModuleScope();  ///< leaves it
    ModuleScope(const ModuleScope&) = delete;
    ModuleScope& operator=(const ModuleScope&) = delete;

private:
    bool pushed_ = false;
};
/// The dotted path of the ModuleScopes open on this thread ("4.attn"; "" when none is).
std::string current_module_path();
/// Their type names, joined the same way ("Block.Attention"; "" when none is open).
std::string current_module_types();

/// Records every event on this thread into `trace` while alive (recorders nest: the innermost wins).
class TraceRecorder {
public:
    explicit TraceRecorder(Trace& trace);  ///< starts recording into `trace` (which must outlive the recorder)
    ~TraceRecorder();                      ///< goes back to the previous recorder, or to none
    TraceRecorder(const TraceRecorder&) = delete;
    TraceRecorder& operator=(const TraceRecorder&) = delete;

private:
    Trace* previous_;
};

/// The trace being recorded on this thread, or nullptr. Callers build an Event only when non-null.
Trace* current();

/// Only top-level ops are traced: ops run inside another op (its forward, a backward formula,
/// autocast's casts) are part of that op's event. A NestedScope marks such an inner region.
class NestedScope {
public:
    NestedScope();   ///< enters an inner region: ops run until it ends are not traced on their own
    ~NestedScope();  ///< leaves it
    NestedScope(const NestedScope&) = delete;
    NestedScope& operator=(const NestedScope&) = delete;
};
/// True outside every NestedScope on this thread: an op run now gets its own event.
bool at_top_level();

/// Marks backward() running on this thread (the engine opens one for each call). An event that
/// is no graph node's own but happens inside, such as the all-reduce a gradient hook starts
/// (DistributedDataParallel's buckets), belongs to the backward phase: see current_phase().
class BackwardScope {
public:
    BackwardScope();   ///< backward() starts
    ~BackwardScope();  ///< it ends
    BackwardScope(const BackwardScope&) = delete;
    BackwardScope& operator=(const BackwardScope&) = delete;
};
/// Phase::backward inside a BackwardScope on this thread, else Phase::forward.
Phase current_phase();

/// Notes an FP8/FP4 cast made inside an op while a trace records (nothing otherwise): the next
/// event added to the trace (the op's own, which is added after its forward or backward ran)
/// carries it in Event::scaled_casts.
void note_scaled_cast(ScaledCast cast);

}  // namespace tinyamp::trace
