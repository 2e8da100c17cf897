#pragma once
/// \file
/// The words for what the algorithms decided: the events a trace records and the lines
/// TINYAMP_DEBUG=1 prints, built from the records the autocast layer (amp::Decision,
/// amp::CachedCast) and the backward engine (the nodes it ran) hand back.
///
/// This folder sits one floor above the autocast and autograd layers (amp/, autograd/), whose records it reads, and
/// below the dispatcher and the engine, which call it; none of it runs unless explaining().

#include <string>
#include <unordered_map>
#include <vector>

#include "tinyamp/amp/autocast_layer.h"
#include "tinyamp/amp/cast_cache.h"
#include "tinyamp/autograd/node.h"
#include "tinyamp/trace/recorder.h"

namespace tinyamp::trace {

/// Whether the environment has TINYAMP_DEBUG=1 (read once, at the first call).
bool debug_enabled();
/// Whether anyone reads explanations now: a trace recording at top level, or TINYAMP_DEBUG=1.
/// Without one, nothing here builds a string.
bool explaining();
/// Logs a line to stderr, prefixed "[tinyamp autocast] ", when the environment has TINYAMP_DEBUG=1.
void debug_log(const std::string& line);

/// The one-line why of an autocast decision about `op`: "matmul is lower_precision_fp on cpu →
/// runs in bf16", "relu is not listed on cpu → runs in its input dtypes".
std::string explain_decision(const char* op, const amp::Decision& decision);
/// Why a cast was (not) cached, as a sentence about `source`: "w is an f32 leaf that requires grad".
std::string explain_cache_reason(amp::CacheReason reason, const Tensor& source);

/// After amp::decide(): logs the decision under TINYAMP_DEBUG (ops the table lists only: the
/// others are not autocast decisions).
void log_decision(const char* op, const amp::Decision& decision);
/// A cast the autocast layer made of `source` for `op`: logged under TINYAMP_DEBUG, and added
/// as a cast event (with what the cache did) when a trace records at top level.
void record_cast(const char* op, const amp::Decision& decision, const Tensor& source, const amp::CachedCast& cast);
/// The forward event of a top-level op: its inputs as the op saw them (after the casts), its
/// result with value statistics, and the rule behind it.
void record_forward(const char* op, const std::vector<Tensor>& inputs, const Tensor& output, const amp::Decision& decision);

/// One backward event per graph node the engine ran, while a trace records: the gradients it
/// received (one entry per branch that sent one: the engine sums them) and those it passed on.
/// AccumulateGrad passes nothing on; its event shows the .grad it wrote instead.
class BackwardTracer {
public:
    explicit BackwardTracer(Trace& trace) : trace_(trace) {}  ///< records into `trace`, which must outlive the tracer
    /// `grad` is a root gradient given to backward() for `node`.
    void seed(Node* node, const Tensor& grad);
    /// `grad` was sent along an edge to `to`.
    void sent(Node* to, const Tensor& grad);
    /// `node` ran on `grad_output`; `raw` are the gradients node.apply returned, `passed` those
    /// sent on after the engine cast them back to their forward dtypes (undefined: not sent).
    void ran(Node& node, const Tensor& grad_output, const std::vector<Tensor>& raw, const std::vector<Tensor>& passed);

private:
    Trace& trace_;
    std::unordered_map<const Node*, std::vector<TensorInfo>> received_;
    std::unordered_map<const Node*, std::pair<std::string, std::string>> sender_module_;  // see ran()
};

}  // namespace tinyamp::trace
