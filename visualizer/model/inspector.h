#pragma once
// What the inspector panel says about one node: the op, the autocast rule and its one-line why,
// input/output dtypes and shapes, value statistics and the log2|x| histogram with the limits of
// f16 and bf16. Plain data, so a test can check exactly what a student would read.
#include <string>
#include <vector>

#include "tinyamp/trace/trace_graph.h"

namespace tinyamp::viz {

/// The edges of a 16-bit format's range, as powers of two are drawn on the histogram.
struct FormatLimits {
    DType dtype;
    double max;                 ///< largest finite value: 65504 (f16), 3.3895e38 (bf16)
    double smallest_normal;     ///< 2^-14 (f16), 2^-126 (bf16)
    double smallest_subnormal;  ///< 2^-24 (f16), 2^-133 (bf16)
};
FormatLimits format_limits(DType dtype);  ///< f16 or bf16; Error(dtype) otherwise

/// What a live scenario knows of the step whose trace is shown, beyond the trace: a trace file
/// carries none of it, and the inspector then says what the values show without naming a cause.
struct StepContext {
    bool loss_scaled = false;   ///< backward ran from the loss times a GradScaler's scale
    bool step_skipped = false;  ///< the GradScaler found inf or NaN gradients and skipped the optimizer step
};

struct NodeDetails {
    std::string title;                    ///< e.g. "linear  (#4, forward)" or "w1  (parameter)"
    /// What happened, to be read first: "" while every value is finite; else how many values are
    /// NaN or inf and where they came from, e.g. "every value is NaN or inf: the scaled gradient
    /// overflowed f16 at the cast's backward (to, #38), so GradScaler skips this step".
    std::string headline;
    trace::NodeKind kind = trace::NodeKind::op;
    std::string policy;                   ///< the autocast rule ("lower_precision_fp", ...), "" when autocast was off
    std::string policy_meaning;           ///< what that rule does, one line ("" when no rule)
    std::string why;                      ///< the trace's one-line why
    std::string cache;                    ///< "" or a sentence on the cast-cache hit/store
    /// A collective's node: how its data travelled, "all_reduce SUM in bf16, 102 bytes, rank 0
    /// of 2" (trace::collective_summary); "" for other nodes.
    std::string collective;
    std::vector<trace::TensorInfo> inputs;
    std::vector<trace::TensorInfo> outputs;
    bool has_values = false;              ///< `values` has statistics (op outputs); parameters have none
    trace::TensorInfo values;             ///< the tensor whose statistics and histogram are shown
    /// The range of `values` in one line, "|x| from 2.24e-07 to 0.00151, zeros 0%"; "no finite
    /// values" when all are NaN or inf (the range, the losses and the histogram then say nothing).
    std::string value_range;
    bool has_finite_values = false;       ///< some of `values` are finite
    /// Plain sentences for the panel, e.g. "f16 would flush 12.5% of the non-zero values to 0".
    std::vector<std::string> facts;
};

/// Throws Error(index) for a node outside the graph. `step` words the headline's cause (a live
/// scenario passes what its GradScaler did; a trace file, nothing).
NodeDetails inspect(const trace::Trace& trace, const trace::TraceGraph& graph, int node, const StepContext& step = {});

}  // namespace tinyamp::viz
