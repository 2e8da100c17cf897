#pragma once
// The backward engine: from the outputs, visit the graph in reverse topological order without
// recursion (so a graph thousands of ops deep is fine), summing the gradients that reach each node.

#include <vector>

#include "tinyamp/core/tensor.h"

namespace tinyamp {

/// Computes gradients of `outputs` (seeded with `grad_outputs`; a one-element output may leave its
/// seed undefined, meaning 1) and adds them into the .grad of every leaf that requires grad.
/// Without retain_graph, the saved tensors of every node visited are freed afterwards. With
/// create_graph, the backward ops are themselves recorded (for higher-order gradients).
void backward(const std::vector<Tensor>& outputs, const std::vector<Tensor>& grad_outputs = {}, bool retain_graph = false,
              bool create_graph = false);

}  // namespace tinyamp
