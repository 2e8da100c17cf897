// The inspector panel's text for one node, built from the trace event behind it (or, for a
// parameter or an input, from the tensor as the trace first saw it).
#include "visualizer/model/inspector.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string_view>

namespace tinyamp::viz {
namespace {

using trace::Event;
using trace::GraphNode;
using trace::TensorInfo;
using trace::TraceGraph;

std::string describe_tensor(const TensorInfo& t)
{
    std::string text = dtype_name(t.dtype);
    return text.append(" ").append(shape_str(t.shape));
}

std::string printf_text(const char* format, double value)
{
    char text[32];
    std::snprintf(text, sizeof text, format, value);
    return text;
}

// A magnitude with 3 significant digits, without an exponent where a student reads it easily:
// "0.418", "70000", but "1e-08" and "3.39e+38".
std::string magnitude(double v)
{
    if (!(v >= 1e-3 && v < 1e6)) return printf_text("%.3g", v);
    const int decimals = std::max(0, 2 - int(std::floor(std::log10(v))));
    char digits[32];
    std::snprintf(digits, sizeof digits, "%.*f", decimals, v);
    std::string text = digits;
    if (text.find('.') != std::string::npos) {  // "2.00" -> "2", "0.500" -> "0.5"
        text.erase(text.find_last_not_of('0') + 1);
        if (text.back() == '.') text.pop_back();
    }
    return text;
}

// A share in [0, 1] as a percentage a student can trust: one decimal ("12.5%", "50%"), more
// digits for small shares ("0.012%"), and never "0%" or "100%" for a share that is not.
std::string percent(double share)
{
    const double p = share * 100;
    if (share > 0 && p < 0.001) return "under 0.001%";
    if (share > 0 && p < 0.1) return printf_text("%.2g", p).append("%");
    if (share < 1 && p >= 99.95) return "over 99.9%";
    std::string text = printf_text("%.1f", p);
    if (text.size() > 2 && text.compare(text.size() - 2, 2, ".0") == 0) text.resize(text.size() - 2);
    return text.append("%");
}

std::int64_t element_count(const TensorInfo& t)
{
    std::int64_t n = 1;
    for (const std::int64_t size : t.shape) n *= size;
    return n;
}

// "3 values are NaN", "1 value is NaN".
std::string count_sentence(std::int64_t count, const char* what)
{
    return std::to_string(count).append(count == 1 ? " value is " : " values are ").append(what);
}

// How many of a tensor's values are NaN, inf and finite, from its statistics' shares.
struct ValueCounts {
    std::int64_t all = 0, nans = 0, infs = 0;
    std::int64_t nonfinite() const { return nans + infs; }
    std::int64_t finite() const { return all - nans - infs; }
};
ValueCounts value_counts(const TensorInfo& t)
{
    const std::int64_t all = element_count(t);
    return {all, std::llround(t.stats.nans * double(all)), std::llround(t.stats.infs * double(all))};
}

// The statistics of `values`, as sentences: NaN/inf counts, exact zeros, the range of |x|, and
// what a cast to f16 or bf16 would lose.
std::vector<std::string> value_facts(const TensorInfo& values)
{
    const trace::ValueStats& s = values.stats;
    const ValueCounts counts = value_counts(values);
    std::vector<std::string> facts;
    if (counts.nans > 0) facts.push_back(count_sentence(counts.nans, "NaN"));
    if (counts.infs > 0) facts.push_back(count_sentence(counts.infs, "+-inf"));
    if (s.zeros > 0) facts.push_back(percent(s.zeros).append(" of the values are exactly 0"));
    if (s.max_abs > 0 && s.min_abs == s.max_abs)
        facts.push_back(std::string("every finite non-zero value has |x| = ").append(magnitude(s.max_abs)));
    else if (s.max_abs > 0)
        facts.push_back(std::string("|x| runs from ").append(magnitude(s.min_abs)).append(" to ").append(magnitude(s.max_abs))
                            .append(" over the finite non-zero values"));
    const struct {
        DType dtype;
        double underflow, overflow;
    } losses[] = {{f16, s.f16_underflow, s.f16_overflow}, {bf16, s.bf16_underflow, s.bf16_overflow}};
    bool lossless = true;
    for (const auto& loss : losses) {
        if (loss.underflow > 0)
            facts.push_back(std::string(dtype_name(loss.dtype)).append(" would flush ").append(percent(loss.underflow)).append(" of the non-zero values to 0"));
        if (loss.overflow > 0)
            facts.push_back(std::string(dtype_name(loss.dtype)).append(" would overflow ").append(percent(loss.overflow)).append(" of the finite values to inf"));
        lossless = lossless && loss.underflow == 0 && loss.overflow == 0;
    }
    if (lossless && s.max_abs > 0) facts.emplace_back("f16 and bf16 both hold every finite value: none would flush to 0 or overflow");
    return facts;
}

// What an autocast rule does, in one line (trace::Event::policy lists the rules).
std::string policy_meaning(const std::string& policy)
{
    if (policy.empty()) return "";
    if (policy == "lower_precision_fp")
        return "runs in the region's low-precision dtype (f16 or bf16): eligible f32 inputs are cast down, weights through the cast cache";
    if (policy == "fp32") return "needs f32's range or precision: eligible low-precision inputs are cast up to f32";
    if (policy == "fp32_set_opt_dtype") return "computes in f32 by setting the op's dtype= argument (unless you gave one); its inputs are not cast";
    if (policy == "promote") return "mixes dtypes safely: eligible inputs are cast to the widest dtype among them";
    if (policy == "banned") return "not allowed under autocast: the op throws (use a safe variant such as binary_cross_entropy_with_logits)";
    if (policy == "not listed") return "not in the autocast table: runs in its inputs' dtypes, with the usual type promotion";
    return "a rule this version of the inspector does not describe";
}

// What an op does with precision inside itself, where the trace cannot show it ("" for most
// ops, whose inputs and outputs say it all). The fused attention is one node, but computes its
// logits and softmax in f32 however its inputs come in (ops/attention.h).
std::string inner_precision(const Event& e)
{
    if (e.op != "scaled_dot_product_attention" || e.outputs.empty()) return "";
    const DType dtype = e.outputs[0].dtype;
    if (e.phase == trace::Phase::backward)
        return std::string("fused attention's backward: the forward pass saved each row's log-sum-exp, not the probabilities; from it "
                           "this op recomputes the softmax")
            .append(dtype == f16 || dtype == bf16 ? " in f32" : "")
            .append(" (FlashAttention's recomputation), then rounds the gradients of q, k and v to their dtypes");
    if (dtype != f16 && dtype != bf16)
        return std::string("fused attention: the logits q k^T * scale, the mask and the softmax are computed inside this one op, in ")
            .append(dtype_name(dtype));
    return std::string("fused attention: the logits q k^T * scale, the mask and the softmax are computed in f32 inside this one op ")
        .append("(as FlashAttention keeps them in registers) and only its output is rounded to ")
        .append(dtype_name(dtype))
        .append(", so the logits never exist in ")
        .append(dtype_name(dtype))
        .append(dtype == f16 ? " and cannot overflow its 65504" : "")
        .append(". Its composite reference (scenario gpt-composite) runs matmul, mul, masked_fill, softmax and matmul as ops of their own, "
                "each in the dtype autocast gives it");
}

// The cast cache's part in a cast, as a sentence ("" when it had none).
std::string cache_sentence(const Event& e)
{
    const std::string who = e.inputs.empty() || e.inputs[0].name.empty() ? std::string("this tensor") : e.inputs[0].name;
    const std::string to = e.outputs.empty() ? std::string("low-precision") : dtype_name(e.outputs[0].dtype);
    switch (e.cache) {
    case trace::CacheEvent::hit:
        return std::string("the cast cache served this cast: ").append(who).append(" was cast once in this autocast region and reused");
    case trace::CacheEvent::stored:
        return std::string("the cast cache stored this cast: ")
            .append(who)
            .append(" is a leaf that requires grad (a weight), so its first ")
            .append(to)
            .append(" copy is kept and reused by later ops in this autocast region");
    case trace::CacheEvent::none: break;
    }
    return "";
}

// Which gradient a backward event's output is, for the panel: a named .grad as it is; otherwise
// followed through the casts' backward ("to") to the AccumulateGrad that stores it ("grad of w1").
std::string gradient_name(const trace::Trace& trace, const TraceGraph& graph, int node, const TensorInfo& grad)
{
    if (!grad.name.empty()) return grad.name;
    std::uint64_t id = grad.id;
    for (std::size_t hops = 0; hops <= graph.nodes.size(); ++hops) {
        const trace::GraphEdge* next = nullptr;
        for (const trace::GraphEdge& edge : graph.edges)
            if (edge.from == node && edge.tensor.id == id) next = &edge;
        if (!next) return "a gradient";
        const GraphNode& to = graph.nodes[std::size_t(next->to)];
        if (to.event < 0) return std::string("a gradient for ").append(to.label.front());  // into a folded module
        const Event& consumer = trace.events()[std::size_t(to.event)];
        constexpr std::string_view suffix = ".grad";
        if (consumer.op == "AccumulateGrad" && consumer.outputs.size() == 1) {
            std::string_view stored = consumer.outputs[0].name;
            if (stored.size() > suffix.size() && stored.substr(stored.size() - suffix.size()) == suffix) stored.remove_suffix(suffix.size());
            return std::string("grad of ").append(stored);
        }
        if (consumer.op != "to" || consumer.outputs.size() != 1) return std::string("grad of ").append(consumer.op).append("'s output");
        node = next->to;
        id = consumer.outputs[0].id;
    }
    return "a gradient";
}

std::vector<std::string> gradient_facts(const trace::Trace& trace, const TraceGraph& graph, int node, const Event& e)
{
    if (e.outputs.empty()) return {"produced no gradients (no input of the forward op needed one)"};
    std::string produced = e.op == "AccumulateGrad" ? "wrote " : e.outputs.size() == 1 ? "produced 1 gradient: " : "produced " + std::to_string(e.outputs.size()) + " gradients: ";
    for (std::size_t i = 0; i < e.outputs.size(); ++i)
        produced.append(i == 0 ? "" : ", ").append(gradient_name(trace, graph, node, e.outputs[i])).append(" (").append(describe_tensor(e.outputs[i])).append(")");
    return {produced};
}

// What a collective did with the data, for a student: what left the rank in which dtype and how
// many bytes, what a 16-bit sum loses, and when a backward one was sent.
std::vector<std::string> collective_facts(const Event& e)
{
    const trace::Collective& c = *e.collective;
    const std::int64_t elements = c.bytes / std::int64_t(dtype_size(c.dtype));
    std::vector<std::string> facts;
    facts.push_back("rank " + std::to_string(c.rank) + " handed in " + std::to_string(c.bytes) + " bytes: " + std::to_string(elements) + ' ' +
                    dtype_name(c.dtype) + " elements");
    if (!e.inputs.empty() && e.inputs.front().dtype != c.dtype) {
        const DType own = e.inputs.front().dtype;
        facts.push_back(std::string("the ") + dtype_name(own) + " tensors left the rank as " + dtype_name(c.dtype) + " (" +
                        std::to_string(dtype_size(c.dtype)) + " bytes an element instead of " + std::to_string(dtype_size(own)) +
                        ") and came back written in " + dtype_name(e.outputs.empty() ? own : e.outputs.front().dtype));
    }
    if (!c.reduce_op.empty() && (c.dtype == f16 || c.dtype == bf16))
        facts.push_back(std::string("the ") + dtype_name(c.dtype) + " sum rounds at every step of the reduction, as NCCL's " +
                        dtype_name(c.dtype) + " ring does: an addend smaller than half a unit in the last place of the sum is lost");
    if (e.phase == trace::Phase::backward)
        facts.push_back("sent during backward by a gradient hook, as soon as every gradient of its bucket had arrived "
                        "(DistributedDataParallel): the graph shows where the gradients leave the rank");
    return facts;
}

// The range of the values in one line; over the finite ones only, and "no finite values" when
// none is, rather than a range of nothing ("|x| from 0 to 0").
std::string range_line(const TensorInfo& values)
{
    const trace::ValueStats& s = values.stats;
    const ValueCounts counts = value_counts(values);
    if (counts.all == 0) return "no values (an empty tensor)";
    if (counts.finite() == 0) return "no finite values";
    if (s.max_abs == 0) return "every finite value is 0";
    return std::string(counts.nonfinite() > 0 ? "finite |x| from " : "|x| from ")
        .append(magnitude(s.min_abs))
        .append(" to ")
        .append(magnitude(s.max_abs))
        .append(", zeros ")
        .append(percent(s.zeros));
}

bool has_nonfinite(const TensorInfo& t) { return t.has_stats && (t.stats.nans > 0 || t.stats.infs > 0); }

// The first event of the trace (in the order they ran) that gave a NaN or an inf, or -1: where
// the non-finite values of every later event come from.
int first_nonfinite_event(const trace::Trace& trace)
{
    const std::vector<Event>& events = trace.events();
    for (std::size_t i = 0; i < events.size(); ++i)
        if (std::any_of(events[i].outputs.begin(), events[i].outputs.end(), has_nonfinite)) return int(i);
    return -1;
}

// An event as the graph shows it: "relu (#40)", "linear (#39) in 4 · Linear" inside a folded
// module, "the cast's backward (to, #38)".
std::string event_label(const trace::Trace& trace, const TraceGraph& graph, int index)
{
    const Event& e = trace.events()[std::size_t(index)];
    const std::string seq = " (#" + std::to_string(e.seq) + ")";
    const int node = graph.node_of_event(std::size_t(index));
    if (node >= 0 && graph.nodes[std::size_t(node)].kind == trace::NodeKind::module)
        return e.op + seq + " in " + graph.nodes[std::size_t(node)].label.front();
    if (e.phase == trace::Phase::backward && e.op == "to") return "the cast's backward (to, #" + std::to_string(e.seq) + ")";  // "to" alone says little
    return (node >= 0 ? graph.nodes[std::size_t(node)].label.front() : e.op) + seq;
}

// What happened, first, when some values are NaN or inf: how many, where the step's first ones
// appeared (`here`: the events this node shows) and, from `step`, what the GradScaler did about it.
std::string nonfinite_headline(const trace::Trace& trace, const TraceGraph& graph, const std::vector<int>& here, const TensorInfo& values,
                               const StepContext& step)
{
    const ValueCounts counts = value_counts(values);
    if (counts.nonfinite() == 0) return "";
    const char* what = counts.infs == 0 ? "NaN" : counts.nans == 0 ? "inf" : "NaN or inf";
    std::string text = counts.finite() == 0 ? std::string("every value is ").append(what)
                                            : std::to_string(counts.nonfinite()) + " of " + std::to_string(counts.all) +
                                                  (counts.nonfinite() == 1 ? " values is " : " values are ") + what;
    const int origin = first_nonfinite_event(trace);
    if (origin < 0) return text;  // statistics without an event that made them: nothing more to say
    const Event& first = trace.events()[std::size_t(origin)];
    const TensorInfo& made = *std::find_if(first.outputs.begin(), first.outputs.end(), has_nonfinite);
    const bool from_here = std::find(here.begin(), here.end(), origin) != here.end();
    const std::string where = from_here ? " here" : " at " + event_label(trace, graph, origin);
    const bool overflow = made.stats.infs > 0;
    if (first.phase == trace::Phase::backward && step.loss_scaled)
        text.append(": the scaled gradient ").append(overflow ? "overflowed " : "became NaN in ").append(dtype_name(made.dtype)).append(where);
    else if (from_here && overflow && (made.dtype == f16 || made.dtype == bf16))
        text.append(": ").append(dtype_name(made.dtype)).append(" overflowed here, a result beyond its largest value (")
            .append(magnitude(format_limits(made.dtype).max)).append(") became inf");
    else if (from_here)
        text.append(": the step's first NaN or inf appears here, from finite inputs");
    else
        text.append(": they come from ").append(event_label(trace, graph, origin)).append(", the step's first event with a NaN or inf");
    if (step.step_skipped)
        text.append(first.phase == trace::Phase::forward ? ", so GradScaler skips this step (a loss scale cannot prevent an overflow in the forward pass)"
                                                          : ", so GradScaler skips this step");
    return text;
}

// The values' part of the details: the headline, the range line and the facts, for the values of
// the events `here`.
void describe_values(NodeDetails& d, const trace::Trace& trace, const TraceGraph& graph, const std::vector<int>& here, const StepContext& step)
{
    if (!d.has_values) return;
    d.headline = nonfinite_headline(trace, graph, here, d.values, step);
    d.value_range = range_line(d.values);
    d.has_finite_values = value_counts(d.values).finite() > 0;
    const std::vector<std::string> values = value_facts(d.values);
    d.facts.insert(d.facts.end(), values.begin(), values.end());
}

NodeDetails inspect_event(const trace::Trace& trace, const TraceGraph& graph, int node, const StepContext& step)
{
    const GraphNode& n = graph.nodes[std::size_t(node)];
    TINYAMP_CHECK(std::size_t(n.event) < trace.events().size(), value, "inspect: graph node ", n.name, " is event ", n.event, " but the trace has ",
                  trace.events().size(), " events; pass the trace the graph was built from");
    const Event& e = trace.events()[std::size_t(n.event)];
    NodeDetails d;
    d.title = n.label.front() + "  (#" + std::to_string(e.seq) + ", " + trace::phase_name(e.phase) + ")";
    d.kind = n.kind;
    d.policy = e.policy;
    d.policy_meaning = policy_meaning(e.policy);
    d.why = e.why;
    d.cache = cache_sentence(e);
    d.inputs = e.inputs;
    d.outputs = e.outputs;
    for (const TensorInfo& out : e.outputs)
        if (out.has_stats) {
            d.has_values = true;
            d.values = out;
            break;
        }
    if (e.collective) {
        d.collective = e.op + ' ' + trace::collective_summary(*e.collective);
        d.facts = collective_facts(e);
    } else if (e.phase == trace::Phase::backward) {
        d.facts = gradient_facts(trace, graph, node, e);
    }
    if (std::string inner = inner_precision(e); !inner.empty()) d.facts.push_back(std::move(inner));
    if (e.is_cast && !e.policy.empty())
        d.facts.push_back(std::string("autocast inserted this cast for the op that uses it, whose rule is ").append(e.policy));
    describe_values(d, trace, graph, {n.event}, step);
    return d;
}

NodeDetails inspect_tensor(const GraphNode& n)
{
    const TensorInfo& t = n.tensor;
    const std::string role = n.is_parameter ? "parameter" : !t.is_leaf ? "made before the trace" : n.phase == trace::Phase::backward ? "backward input" : "input";
    NodeDetails d;
    d.title = n.label.front() + "  (" + role + ")";
    d.kind = n.kind;
    d.outputs = {t};
    if (n.is_parameter)
        d.facts.push_back(std::string("a leaf that requires grad: backward accumulates its gradient into ").append(n.label.front()).append(".grad"));
    d.facts.push_back(n.is_parameter ? "the trace does not record parameters' values, only op outputs': select the cast or op that uses it to see its values"
                                     : "the trace does not record the values of tensors from outside it, only op outputs': select the op that uses it");
    return d;
}

// A collapsed module: what ran in it, its casts and cache hits, what goes in and out, and the
// statistics of what it hands on (its last event's output).
NodeDetails inspect_module(const trace::Trace& trace, const TraceGraph& graph, int node, const StepContext& step)
{
    const GraphNode& n = graph.nodes[std::size_t(node)];
    NodeDetails d;
    d.title = n.label.front() + "  (module, " + trace::phase_name(n.phase) + ", collapsed)";
    d.kind = n.kind;
    d.why = n.tooltip;
    for (const trace::GraphEdge& edge : graph.edges) {
        if (edge.to == node) d.inputs.push_back(edge.tensor);
        if (edge.from == node) d.outputs.push_back(edge.tensor);
    }
    // The values shown: those of the first tensor that leaves the box, as the event that made it
    // saw them (an edge's copy has no statistics); without one, the last output with statistics.
    const std::uint64_t leaving = d.outputs.empty() ? 0 : d.outputs.front().id;
    bool found_leaving = false;
    std::string ops;
    for (const int index : n.events) {
        TINYAMP_CHECK(std::size_t(index) < trace.events().size(), value, "inspect: module node ", n.name, " holds event ", index,
                      " but the trace has ", trace.events().size(), " events; pass the trace the graph was built from");
        const Event& e = trace.events()[std::size_t(index)];
        ops.append(ops.empty() ? "" : ", ").append(e.is_cast ? "cast" : e.op);
        for (const TensorInfo& out : e.outputs) {
            if (!out.has_stats || found_leaving) continue;
            d.has_values = true;
            d.values = out;
            found_leaving = !d.outputs.empty() && out.id == leaving;
        }
    }
    d.facts.push_back(std::to_string(n.events.size()) + (n.events.size() == 1 ? " event ran in it: " : " events ran in it: ") + ops);
    if (n.casts > 0)
        d.facts.push_back("autocast cast " + std::to_string(n.casts) + " tensor" + (n.casts == 1 ? "" : "s") + " for it; the cast cache served " +
                          (n.cache_hits == 0 ? std::string("none of them") : std::to_string(n.cache_hits) + " of them"));
    d.facts.push_back("click its box to see each op, cast and weight inside (a click on the frame's title folds it again)");
    describe_values(d, trace, graph, n.events, step);
    return d;
}

}  // namespace

FormatLimits format_limits(DType dtype)
{
    TINYAMP_CHECK(dtype == f16 || dtype == bf16, dtype, "format_limits(", dtype_name(dtype),
                  "): the histogram marks the limits of the 16-bit formats only; ask for f16 or bf16");
    // The dtype table's values are exact: 65504 = (2 - 2^-10) * 2^15 and (2 - 2^-7) * 2^127.
    const DTypeTraits& t = traits(dtype);
    return {dtype, t.max, t.min_normal, t.min_subnormal};
}

NodeDetails inspect(const trace::Trace& trace, const TraceGraph& graph, int node, const StepContext& step)
{
    TINYAMP_CHECK(node >= 0 && std::size_t(node) < graph.nodes.size(), index, "inspect: node ", node, " is outside the graph's ",
                  graph.nodes.size(), " nodes (0 to ", graph.nodes.size(), " - 1)");
    const GraphNode& n = graph.nodes[std::size_t(node)];
    if (n.kind == trace::NodeKind::module) return inspect_module(trace, graph, node, step);
    return n.kind == trace::NodeKind::tensor ? inspect_tensor(n) : inspect_event(trace, graph, node, step);
}

}  // namespace tinyamp::viz
