#pragma once
/// \file
/// The backward engine: from the outputs, visit the graph in reverse topological order without
/// recursion (so a graph thousands of ops deep is fine), summing the gradients that reach each node.

#include <vector>

#include "tinyamp/tensor/tensor.h"

namespace tinyamp {

/// Computes gradients of `outputs` (seeded with `grad_outputs`; a one-element output may leave its
/// seed undefined, meaning 1) and adds them into the .grad of every leaf that requires grad.
/// Without retain_graph, the saved tensors of every node visited are freed afterwards. With
/// create_graph, the backward ops are themselves recorded (for higher-order gradients).
/// As torch.autograd.backward; Tensor::backward calls it for one output.
///
/// Dtypes: a seed of another dtype is cast to its output's dtype, and every gradient is cast to
/// the dtype its input had in forward, so the backward of a bf16 op runs in bf16 and the gradient
/// that reaches an f32 weight through an autocast cast is f32. Backward runs with autocast off
/// on every device type, whatever region it is called in.
///
/// Throws Error(value) when grad_outputs is neither empty nor one per output, Error(state) for an
/// output that does not require grad, and Error(shape) for a missing seed of a non-scalar output
/// or a seed of the wrong shape.
void backward(const std::vector<Tensor>& outputs, const std::vector<Tensor>& grad_outputs = {}, bool retain_graph = false,
              bool create_graph = false);

}  // namespace tinyamp
