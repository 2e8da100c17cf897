#pragma once
/// \file
/// The trace: a record of every op, cast and cast-cache event on this thread, forward and
/// backward, that lessons print and the visualizer draws.
///
/// Recording is off unless a TraceRecorder is alive on the thread; the dispatcher (forward), the
/// autocast layer (casts) and the backward engine (backward) are the only places that add events.

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "tinyamp/core/tensor.h"

namespace tinyamp::trace {

/// Which pass an event belongs to: `forward` (ops and autocast's casts) or `backward` (one event
/// per graph node the backward engine ran).
enum class Phase { forward, backward };

/// What the cast cache did for a cast event (none for ops and for casts it does not apply to).
enum class CacheEvent { none, stored, hit };

const char* phase_name(Phase phase);            ///< "forward" / "backward"
const char* cache_event_name(CacheEvent cache);  ///< "none" / "stored" / "hit"

/// How many finite non-zero values fall in each binade [2^e, 2^(e+1)), e = floor(log2|x|):
/// the visualizer's log2|x| histogram, drawn against the f16 and bf16 limits.
struct Log2Histogram {
    /// floor(log2|x|) of finite non-zero doubles: 2^-1074 (the smallest subnormal) up to 2^1023.
    static constexpr int kSmallestExponent = -1074;
    static constexpr int kLargestExponent = 1023;  ///< the binade of the largest finite double

    int lowest_exponent = 0;           ///< e of counts[0]; 0 when counts is empty
    std::vector<std::int64_t> counts;  ///< counts[i]: values with floor(log2|x|) == lowest_exponent + i; empty if none
};

/// How the values of a tensor sit against the low-precision formats (shares are in [0, 1]).
/// zeros, infs and nans are shares of all elements; an underflow share is taken over the finite
/// non-zero elements and an overflow share over the finite elements (0 when there are none), so
/// "f16_underflow = 0.3" reads "30% of the values that carry information would become 0 in f16".
struct ValueStats {
    double min_abs = 0;           ///< smallest |x| over finite non-zero elements (0 if none)
    double max_abs = 0;           ///< largest |x| over finite elements
    double zeros = 0;             ///< share of exact zeros
    double infs = 0;              ///< share of +-inf
    double nans = 0;              ///< share of NaN
    double f16_underflow = 0;     ///< share of finite non-zero values that f16 rounds to 0
    double f16_overflow = 0;      ///< share of finite values that f16 rounds to +-inf
    double bf16_underflow = 0;    ///< share of finite non-zero values that bf16 rounds to 0
    double bf16_overflow = 0;     ///< share of finite values that bf16 rounds to +-inf
    Log2Histogram log2_abs;       ///< the finite non-zero values by binade
};
ValueStats compute_stats(const Tensor& t);  ///< on the CPU, in f64; empty tensors give all zeros

/// A tensor as an event saw it: identity, dtype, shape and (for outputs) its value statistics.
/// It holds no data, so a trace keeps no tensor alive.
struct TensorInfo {
    std::uint64_t id = 0;        ///< Tensor::id()
    DType dtype = DType::f32;    ///< the tensor's dtype at that moment
    Shape shape;                 ///< its shape
    std::string name;            ///< Tensor::name(), e.g. "w1"
    bool is_leaf = true;         ///< Tensor::is_leaf()
    bool requires_grad = false;  ///< Tensor::requires_grad()
    bool has_stats = false;      ///< true for an event's outputs (stats filled), false for its inputs
    ValueStats stats;            ///< compute_stats() of the tensor when has_stats, else all zeros
};
/// What a trace records about `t`, with compute_stats() when `with_stats`. Throws Error(state)
/// for an undefined tensor.
TensorInfo describe(const Tensor& t, bool with_stats);

/// One recorded event: a top-level forward op, a cast autocast inserted, or the run of one
/// backward node, with the tensors it took and gave and the autocast rule behind it.
struct Event {
    std::uint64_t seq = 0;             ///< order of recording, from 1
    Phase phase = Phase::forward;      ///< forward (ops, casts) or backward (graph nodes)
    std::string op;                    ///< "matmul", "to", ...; backward events use the node's name
    bool is_cast = false;              ///< a cast inserted by autocast
    std::vector<TensorInfo> inputs;    ///< what the op received (after autocast's casts); backward: one gradient per branch that sent one
    std::vector<TensorInfo> outputs;   ///< forward: the result; backward: the input gradients (AccumulateGrad: the .grad it wrote)
    std::string device_type;           ///< "cpu" / "cuda"
    std::string policy;                ///< autocast rule applied: "lower_precision_fp", "fp32", "fp32_set_opt_dtype",
                                       ///< "promote", "banned", "not listed", or "" when autocast was off (and for backward events)
    std::string why;                   ///< one line a student can read
    CacheEvent cache = CacheEvent::none;  ///< what the cast cache did (cast events only)
};

/// One line per event for lessons and logs, e.g.
/// "#3 forward matmul(bf16 [4, 3], bf16 [3, 2]) -> bf16 [4, 2]  [lower_precision_fp]".
std::ostream& operator<<(std::ostream& out, const Event& event);

/// A list of events, in the order they were recorded; fill it with a TraceRecorder.
class Trace {
public:
    const std::vector<Event>& events() const { return events_; }  ///< every event, oldest first
    void add(Event event);             ///< assigns seq: one more than the last event's
    void clear() { events_.clear(); }  ///< removes every event
    /// JSON: {"version": 2, "events": [...]} with every field above (dtypes as "f32", shapes as arrays,
    /// the histogram as {"lowest_exponent": e, "counts": [...]}); trace_json.cpp describes the format.
    std::string to_json() const;
    /// Reads versions 2 and 1 (which has no histograms: they read as empty). Throws Error(io)
    /// naming what is wrong and where.
    static Trace from_json(const std::string& text);
    /// Graphviz DOT: op nodes filled by their output dtype (dtype_color), cast nodes distinct,
    /// cache hits marked, leaf tensors as their own nodes, backward events in a second cluster,
    /// and a legend of the dtypes that appear. Node names: `e<seq>` for events, `t<id>` for tensors
    /// from outside the trace, `legend_<dtype>` for the legend (trace_dot.cpp describes the picture).
    /// The nodes and edges are those of build_graph() (trace_graph.h).
    std::string to_dot() const;

private:
    std::vector<Event> events_;
};

/// Every event, one line each (see operator<< for Event).
std::ostream& operator<<(std::ostream& out, const Trace& trace);

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

/// The one palette for dtypes (GUI, DOT, docs): "#rrggbb" fill and a readable text color.
struct DTypeColor {
    const char* fill;  ///< the dtype's fill, "#rrggbb" (f32 blue, f16 green, bf16 orange, ...)
    const char* text;  ///< white or near-black, whichever contrasts more with the fill (WCAG)
};
/// The fill and text colors of `dtype`, the same everywhere a dtype is drawn.
DTypeColor dtype_color(DType dtype);

}  // namespace tinyamp::trace
