#pragma once
/// \file
/// Node: one recorded op in the backward graph.
///
/// It knows its inputs (as edges to the nodes that made them), the dtypes and shapes it ran with,
/// and how to turn the gradient of its output into gradients of its inputs. Leaves (tensors made
/// by the user with requires_grad) end in an AccumulateGrad node that adds into their .grad.

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tinyamp/tensor/tensor.h"

namespace tinyamp {

class Node;

/// Where the gradient of one input goes: input number `input_nr` of `node` (null: nowhere).
struct Edge {
    std::shared_ptr<Node> node;  ///< the node that receives the gradient (null: none)
    int input_nr = 0;            ///< which of its inputs (0 for the nodes tinyamp makes)
    bool valid() const { return node != nullptr; }  ///< whether the edge leads anywhere
};

/// What an input looked like in the forward pass: its gradient must look the same.
struct TensorMeta {
    DType dtype = DType::f32;       ///< the dtype the engine casts the gradient to
    Shape shape;                    ///< the shape the gradient must have
    Device device = Device::cpu();  ///< where the tensor was
};

/// One recorded op in the backward graph (PyTorch's grad_fn, torch.autograd.graph.Node). The
/// engine calls apply() once per backward with the summed gradient of the node's output.
class Node {
public:
    /// Frees the graph behind this node without recursion (see node.cpp).
    virtual ~Node();
    /// "matmul", "add", "AccumulateGrad", ...
    virtual std::string name() const = 0;
    /// Gradients for each input, given the gradient of the output (an undefined Tensor for an
    /// input that needs none).
    virtual std::vector<Tensor> apply(const Tensor& grad_output) = 0;
    /// Frees what the forward saved for backward (after a backward without retain_graph).
    virtual void release_saved() {}
    /// What must follow apply(), once the engine has recorded the node's trace event: an
    /// AccumulateGrad's post-accumulate-grad hooks. Nothing for other nodes.
    virtual void run_post_hooks() {}

    std::vector<Edge> next_edges;       ///< one per tensor input, in the op's argument order
    std::vector<TensorMeta> inputs;     ///< dtype/shape/device of each tensor input
    TensorMeta output;                  ///< dtype/shape/device of the output
    std::uint64_t sequence_nr = 0;      ///< creation order: later nodes run first in backward
};

/// The node that adds incoming gradients into a leaf tensor's .grad.
class AccumulateGrad : public Node {
public:
    /// The accumulator of `leaf`, which it holds weakly (the graph does not keep parameters alive).
    explicit AccumulateGrad(const std::shared_ptr<TensorImpl>& leaf);
    /// "AccumulateGrad". Defined in node.cpp, so the class's vtable is made there, with Node's, and
    /// not with apply() on the engine's floor.
    std::string name() const override;
    /// Adds `grad_output` into the leaf's .grad (the first gradient is copied, later ones are
    /// added out of place; with create_graph the sum keeps its graph). Returns no gradients; does
    /// nothing when the leaf is gone. Defined with the backward engine (accumulate_grad.cpp),
    /// because it adds with the op `add`, a floor above this file.
    std::vector<Tensor> apply(const Tensor& grad_output) override;
    /// Runs the leaf's hooks (Tensor::register_post_accumulate_grad_hook) on the .grad apply()
    /// stored; nothing when the leaf is gone. The engine calls it right after apply() and the
    /// node's trace event, so that what a hook records (DistributedDataParallel's all-reduce)
    /// comes after the .grad it reads.
    void run_post_hooks() override;
    std::shared_ptr<TensorImpl> leaf() const { return leaf_.lock(); }  ///< the leaf, or null once it is gone
    /// Guards what leaves share between threads: their lazily made accumulator and their .grad.
    static std::mutex& leaf_mutex();

private:
    std::weak_ptr<TensorImpl> leaf_;  // weak: the graph must not keep parameters alive
};

/// A fresh, increasing number for each node made on this thread.
std::uint64_t next_sequence_nr();
/// The edge along which the gradient of `t` flows: its grad_fn, its leaf accumulator, or none.
Edge gradient_edge(const Tensor& t);
/// The dtype, shape and device of `t`.
TensorMeta meta_of(const Tensor& t);

}  // namespace tinyamp
