#include "tinyamp/autograd/engine.h"

#include <map>
#include <optional>
#include <queue>
#include <sstream>
#include <string>
#include <unordered_map>

#include "tinyamp/amp/autocast_state.h"
#include "tinyamp/autograd/node.h"
#include "tinyamp/core/factories.h"
#include "tinyamp/core/grad_mode.h"
#include "tinyamp/core/layout.h"
#include "tinyamp/ops/elementwise.h"
#include "tinyamp/trace/trace.h"

namespace tinyamp {
namespace {

// A gradient must have the dtype and shape its input had in forward. An op may hand back a
// gradient in another float dtype (add of f16 and f32 computes in f32): it is cast back here, which
// is also how the backward of a low-precision op stays in low precision.
Tensor conform(const Tensor& grad, const TensorMeta& meta, const Node& node, std::size_t input)
{
    TINYAMP_CHECK(grad.shape() == meta.shape, shape, "backward of '", node.name(), "' produced a gradient of shape ",
                  shape_str(grad.shape()), " for input ", input, ", whose shape is ", shape_str(meta.shape),
                  " (a bug in that op's backward)");
    return grad.dtype() == meta.dtype ? grad : grad.to(meta.dtype);
}

// While a TraceRecorder is alive, one backward event per node that runs: the gradients it received
// (one entry per branch that sent one: the engine sums them into the node's grad_output) and the
// gradients it passed on, after conform(). AccumulateGrad passes nothing on; its event shows the
// .grad it wrote instead.
class BackwardTracer {
public:
    explicit BackwardTracer(trace::Trace& trace) : trace_(trace) {}

    void seed(Node* node, const Tensor& grad)
    {
        trace::TensorInfo info = trace::describe(grad, false);
        if (info.name.empty()) info.name = "gradient seed";
        received_[node].push_back(std::move(info));
    }
    void sent(Node* to, const Tensor& grad) { received_[to].push_back(trace::describe(grad, false)); }

    // `raw` are the gradients as node->apply returned them, `passed` the conformed ones sent on.
    void ran(Node& node, const Tensor& grad_output, const std::vector<Tensor>& raw, const std::vector<Tensor>& passed)
    {
        trace::Event e;
        e.phase = trace::Phase::backward;
        e.op = node.name();
        e.inputs = std::move(received_[&node]);
        received_.erase(&node);
        e.device_type = device_type_name(grad_output.device().type());
        std::ostringstream why;
        std::string incoming = dtype_name(grad_output.dtype());
        if (e.inputs.size() > 1) incoming.append(", the sum of ").append(std::to_string(e.inputs.size())).append(" branches");
        if (auto* accumulate = dynamic_cast<AccumulateGrad*>(&node)) {
            why << "AccumulateGrad adds the incoming gradient (" << incoming << ")";
            if (const std::shared_ptr<TensorImpl> leaf = accumulate->leaf(); leaf && leaf->grad.defined()) {
                trace::TensorInfo grad = trace::describe(leaf->grad, true);
                grad.name = leaf->name.empty() ? "leaf.grad" : leaf->name + ".grad";
                why << " into " << grad.name << " (" << dtype_name(grad.dtype) << ")";
                e.outputs.push_back(std::move(grad));
            }
        } else {
            why << node.name() << "'s backward: gradient of its output (" << incoming << ") \u2192 gradients of its inputs";
            for (std::size_t i = 0; i < passed.size(); ++i) {
                if (!passed[i].defined()) continue;
                e.outputs.push_back(trace::describe(passed[i], true));
                if (raw[i].dtype() != passed[i].dtype())  // where a gradient changes dtype on its way back
                    why << "; input " << i << "'s gradient cast " << dtype_name(raw[i].dtype()) << "\u2192" << dtype_name(passed[i].dtype())
                        << " to match its forward dtype";
            }
        }
        e.why = why.str();
        trace_.add(std::move(e));
    }

private:
    trace::Trace& trace_;
    std::unordered_map<const Node*, std::vector<trace::TensorInfo>> received_;
};

struct NodeOrder {  // the ready node with the largest sequence number (made last) runs first
    bool operator()(const Node* a, const Node* b) const { return a->sequence_nr < b->sequence_nr; }
};

}  // namespace

void backward(const std::vector<Tensor>& outputs, const std::vector<Tensor>& grad_outputs, bool retain_graph, bool create_graph)
{
    TINYAMP_CHECK(grad_outputs.empty() || grad_outputs.size() == outputs.size(), value, "backward got ", outputs.size(), " outputs but ",
                  grad_outputs.size(), " gradients; give one gradient per output (or none for one-element outputs)");

    // The ops run here (casts and sums of gradients, backward formulas) belong to the backward
    // events, so they are not traced as forward ops of their own.
    std::optional<BackwardTracer> tracer;
    if (trace::current() && trace::at_top_level()) tracer.emplace(*trace::current());
    trace::NestedScope inside_backward;

    // 1. The root gradients.
    std::vector<std::pair<Edge, Tensor>> roots;
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        const Tensor& out = outputs[i];
        TINYAMP_CHECK(out.requires_grad(), state, "output ", i, " of backward does not require grad and has no grad_fn, so there is "
                      "nothing to differentiate; mark an input with requires_grad_() before computing it");
        Tensor grad = grad_outputs.empty() ? Tensor() : grad_outputs[i];
        if (!grad.defined()) {
            TINYAMP_CHECK(out.numel() == 1, shape, "backward() on a tensor of shape ", shape_str(out.shape()), " needs an explicit gradient: "
                          "the gradient can only be implied (as 1) for one-element outputs; pass one of the same shape, or reduce first (e.g. sum)");
            grad = ones_like(out);
        }
        TINYAMP_CHECK(grad.shape() == out.shape(), shape, "the gradient given to backward has shape ", shape_str(grad.shape()),
                      " but output ", i, " has shape ", shape_str(out.shape()), "; they must match");
        roots.emplace_back(gradient_edge(out), grad.dtype() == out.dtype() ? grad : grad.to(out.dtype()));
    }

    // 2. How many gradients will arrive at each node (iterative depth-first walk).
    std::unordered_map<Node*, int> pending;
    std::vector<Node*> stack;
    for (auto& [edge, grad] : roots) {
        if (!pending.count(edge.node.get())) {
            pending[edge.node.get()] = 0;
            stack.push_back(edge.node.get());
        }
    }
    while (!stack.empty()) {
        Node* node = stack.back();
        stack.pop_back();
        for (const Edge& next : node->next_edges) {
            if (!next.valid()) continue;
            auto [it, first_visit] = pending.try_emplace(next.node.get(), 0);
            ++it->second;
            if (first_visit) stack.push_back(next.node.get());
        }
    }

    // 3. Run each node once all its gradients have arrived, passing results along its edges.
    GradModeGuard grad_mode(create_graph);
    amp::DisableAutocast no_autocast;  // backward runs in the dtypes the forward saved, in any region
    trace::NestedScope nested;         // ops inside backward formulas belong to their node's event
    std::unordered_map<Node*, Tensor> arrived;  // summed gradient of each node's output
    std::priority_queue<Node*, std::vector<Node*>, NodeOrder> ready;
    for (auto& [edge, grad] : roots) {
        Tensor& slot = arrived[edge.node.get()];
        slot = slot.defined() ? add(slot, grad) : grad;
        if (tracer) tracer->seed(edge.node.get(), grad);
    }
    for (auto& [edge, grad] : roots)
        if (pending[edge.node.get()] == 0) {
            pending[edge.node.get()] = -1;  // queued
            ready.push(edge.node.get());
        }
    std::vector<std::shared_ptr<Node>> keep_alive;  // nodes stay valid while we walk them
    for (auto& [edge, grad] : roots) keep_alive.push_back(edge.node);
    while (!ready.empty()) {
        Node* node = ready.top();
        ready.pop();
        const Tensor grad_output = std::move(arrived[node]);
        arrived.erase(node);
        // Every branch into this node gave "no gradient": it has nothing to pass on.
        std::vector<Tensor> grads = grad_output.defined() ? node->apply(grad_output) : std::vector<Tensor>{};
        if (!retain_graph) node->release_saved();
        std::vector<Tensor> passed(tracer ? grads.size() : 0);  // what was sent on, for the trace
        for (std::size_t i = 0; i < node->next_edges.size(); ++i) {
            const Edge& next = node->next_edges[i];
            if (!next.valid() || i >= grads.size() || !grads[i].defined()) {
                if (next.valid() && --pending[next.node.get()] == 0) ready.push(next.node.get());
                continue;
            }
            const Tensor grad = conform(grads[i], node->inputs[i], *node, i);
            if (tracer) {
                passed[i] = grad;
                tracer->sent(next.node.get(), grad);
            }
            Tensor& slot = arrived[next.node.get()];
            slot = slot.defined() ? add(slot, grad) : grad;
            keep_alive.push_back(next.node);
            if (--pending[next.node.get()] == 0) ready.push(next.node.get());
        }
        if (tracer && grad_output.defined()) tracer->ran(*node, grad_output, grads, passed);
    }
}

void Tensor::backward(const Tensor& gradient, bool retain_graph, bool create_graph) const
{
    tinyamp::backward({*this}, {gradient}, retain_graph, create_graph);
}

}  // namespace tinyamp
