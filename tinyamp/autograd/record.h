#pragma once
/// \file
/// The autograd layer of the dispatcher: runs an op's forward with grad mode off and, when an
/// input requires grad, records a Node whose backward is the op's backward.

#include <concepts>
#include <memory>
#include <vector>

#include "tinyamp/autograd/context.h"
#include "tinyamp/autograd/node.h"
#include "tinyamp/support/grad_mode.h"
#include "tinyamp/tensor/tensor_args.h"

namespace tinyamp::autograd {

/// Throws Error(state) when the backward of `op` returned `got` gradients for `expected` tensor
/// arguments.
void check_gradient_count(const char* op, std::size_t got, std::size_t expected);

/// The graph node of an op defined as a Function: its backward is Op::backward.
template <class Op>
class FunctionNode : public Node {
public:
    ContextFor<Op> ctx;  ///< what Op::forward saved for Op::backward
    std::string name() const override { return Op::name; }
    std::vector<Tensor> apply(const Tensor& grad_output) override
    {
        std::vector<Tensor> grads = Op::backward(ctx, grad_output);
        check_gradient_count(Op::name, grads.size(), next_edges.size());
        return grads;
    }
    void release_saved() override { ctx.release(); }
};

/// All defined inputs on one device (a 0-D CPU tensor, a plain number, may join a GPU op), or
/// Error(device) naming the op and both devices.
void check_same_device(const char* op, const std::vector<Tensor>& inputs);
/// One flag per input: defined and requires grad.
InputFlags inputs_needing_grad(const std::vector<Tensor>& inputs);
/// Fills in the node's edges and metadata and returns a handle to `output` that carries it.
Tensor connect(const Tensor& output, const std::shared_ptr<Node>& node, const std::vector<Tensor>& inputs);

/// An op with a backward; ops without one (comparisons, argmax) are never recorded.
template <class Op>
concept Differentiable = requires(ContextFor<Op>& ctx, const Tensor& grad) {
    { Op::backward(ctx, grad) } -> std::same_as<std::vector<Tensor>>;
};

/// Layer 2 of the dispatcher: runs Op::forward with grad mode off (the ops it uses are not
/// recorded) and, when grad mode is on and a tensor argument requires grad, returns the output
/// with a `FunctionNode<Op>` as its grad_fn. Non-differentiable ops and integer or bool results are
/// never recorded. Throws Error(device) for tensors on two devices.
template <class Op, class... Args>
Tensor run(const Args&... args)
{
    const std::vector<Tensor> inputs = tensors_in(args...);
    check_same_device(Op::name, inputs);
    if constexpr (!Differentiable<Op>) {
        ContextFor<Op> ctx;
        ctx.set_op(Op::name, {}, false);
        GradModeGuard no_grad(false);
        return Op::forward(ctx, args...);
    } else {
        InputFlags needs_grad = inputs_needing_grad(inputs);
        bool record = false;
        if (is_grad_enabled())
            for (bool b : needs_grad) record = record || b;

        std::shared_ptr<FunctionNode<Op>> node = record ? std::make_shared<FunctionNode<Op>>() : nullptr;
        ContextFor<Op> unrecorded;
        ContextFor<Op>& ctx = node ? node->ctx : unrecorded;
        ctx.set_op(Op::name, std::move(needs_grad), record);
        Tensor output;
        {
            GradModeGuard no_grad(false);  // ops used inside forward are not recorded themselves
            output = Op::forward(ctx, args...);
        }
        if (!node || !is_floating_point(output.dtype())) return output;  // integer results have no gradient
        return connect(output, node, inputs);
    }
}

}  // namespace tinyamp::autograd
