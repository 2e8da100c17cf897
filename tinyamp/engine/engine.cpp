#include "tinyamp/engine/engine.h"

#include <optional>
#include <queue>
#include <unordered_map>

#include "tinyamp/amp/autocast_state.h"
#include "tinyamp/autograd/node.h"
#include "tinyamp/tensor/factories.h"
#include "tinyamp/support/grad_mode.h"
#include "tinyamp/tensor/layout.h"
#include "tinyamp/ops/elementwise.h"
#include "tinyamp/explain/explain.h"
#include "tinyamp/trace/op_timing.h"

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

// The ready node with the largest sequence number (made last) runs first; among equal ones (the
// leaves' AccumulateGrad nodes all have 0) the one that became ready first. Without that second
// rule the order among them was the standard library's heap's: GCC's and Clang's differ, and so
// did the traces of the native and the web build.
struct ReadyNode {
    Node* node;
    std::uint64_t became_ready;
};
struct NodeOrder {
    bool operator()(const ReadyNode& a, const ReadyNode& b) const
    {
        if (a.node->sequence_nr != b.node->sequence_nr) return a.node->sequence_nr < b.node->sequence_nr;
        return a.became_ready > b.became_ready;
    }
};

using Roots = std::vector<std::pair<Edge, Tensor>>;

// 1. The root gradients: one per output, in the output's dtype; implied as 1 for one-element outputs.
Roots root_gradients(const std::vector<Tensor>& outputs, const std::vector<Tensor>& grad_outputs)
{
    TINYAMP_CHECK(grad_outputs.empty() || grad_outputs.size() == outputs.size(), value, "backward got ", outputs.size(), " outputs but ",
                  grad_outputs.size(), " gradients; give one gradient per output (or none for one-element outputs)");
    Roots roots;
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
    return roots;
}

// 2. How many gradients will arrive at each node reachable from the roots (iterative depth-first walk).
std::unordered_map<Node*, int> count_dependencies(const Roots& roots)
{
    std::unordered_map<Node*, int> pending;
    std::vector<Node*> stack;
    for (const auto& [edge, grad] : roots)
        if (pending.try_emplace(edge.node.get(), 0).second) stack.push_back(edge.node.get());
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
    return pending;
}

// One node's backward formula, timed as "<name> backward" while an OpTimingRecorder is alive. A
// node every branch into gave "no gradient" has nothing to pass on.
std::vector<Tensor> run_node(Node& node, const Tensor& grad_output)
{
    if (!grad_output.defined()) return {};
    const auto timed = trace::TimedPiece::named([&] { return node.name() + " backward"; });
    return node.apply(grad_output);
}

}  // namespace

void backward(const std::vector<Tensor>& outputs, const std::vector<Tensor>& grad_outputs, bool retain_graph, bool create_graph)
{
    // While a trace records, one backward event per node (explain/explain.h). The ops run here
    // (backward formulas, casts and sums of gradients) belong to those events, so they are not
    // traced as forward ops of their own.
    std::optional<trace::BackwardTracer> tracer;
    if (trace::current() && trace::at_top_level()) tracer.emplace(*trace::current());
    trace::NestedScope inside_backward;
    trace::BackwardScope backward_phase;  // a collective a gradient hook starts is a backward event

    const Roots roots = root_gradients(outputs, grad_outputs);
    std::unordered_map<Node*, int> pending = count_dependencies(roots);

    // 3. Run each node once all its gradients have arrived, passing results along its edges.
    GradModeGuard grad_mode(create_graph);
    amp::DisableAutocast no_autocast;  // backward runs in the dtypes the forward saved, in any region
    std::unordered_map<Node*, Tensor> arrived;  // summed gradient of each node's output
    const auto deliver = [&](Node* to, const Tensor& grad) {
        Tensor& slot = arrived[to];
        slot = slot.defined() ? add(slot, grad) : grad;
    };
    std::priority_queue<ReadyNode, std::vector<ReadyNode>, NodeOrder> ready;
    std::uint64_t readied = 0;
    std::vector<std::shared_ptr<Node>> keep_alive;  // nodes stay valid while we walk them
    for (const auto& [edge, grad] : roots) {
        deliver(edge.node.get(), grad);
        if (tracer) tracer->seed(edge.node.get(), grad);
        keep_alive.push_back(edge.node);
    }
    for (const auto& [edge, grad] : roots)
        if (pending[edge.node.get()] == 0) {
            pending[edge.node.get()] = -1;  // queued
            ready.push({edge.node.get(), readied++});
        }
    while (!ready.empty()) {
        Node* node = ready.top().node;
        ready.pop();
        const Tensor grad_output = std::move(arrived[node]);
        arrived.erase(node);
        std::vector<Tensor> grads = run_node(*node, grad_output);
        if (!retain_graph) node->release_saved();
        std::vector<Tensor> passed(tracer ? grads.size() : 0);  // what was sent on, for the trace
        for (std::size_t i = 0; i < node->next_edges.size(); ++i) {
            const Edge& next = node->next_edges[i];
            if (!next.valid()) continue;
            if (i < grads.size() && grads[i].defined()) {
                const Tensor grad = conform(grads[i], node->inputs[i], *node, i);
                deliver(next.node.get(), grad);
                keep_alive.push_back(next.node);
                if (tracer) {
                    passed[i] = grad;
                    tracer->sent(next.node.get(), grad);
                }
            }
            if (--pending[next.node.get()] == 0) ready.push({next.node.get(), readied++});
        }
        if (tracer && grad_output.defined()) tracer->ran(*node, grad_output, grads, passed);
        // After the node's event: a hook's own events (a bucket's all-reduce) follow the .grad they read.
        if (grad_output.defined()) node->run_post_hooks();
    }
}

void Tensor::backward(const Tensor& gradient, bool retain_graph, bool create_graph) const
{
    tinyamp::backward({*this}, {gradient}, retain_graph, create_graph);
}

}  // namespace tinyamp
