#pragma once
// Walks a recorded backward graph (made with create_graph) to check what it was computed in.

#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

#include "tinyamp/autograd/node.h"

namespace tinyamp::test {

/// Every op that computed `grad` ran in `dtype`, with no cast (`to` node) in between.
inline void check_graph_dtype(const Tensor& grad, DType dtype)
{
    std::vector<Node*> stack;
    std::set<Node*> seen;
    if (grad.grad_fn()) stack.push_back(grad.grad_fn().get());
    while (!stack.empty()) {
        Node* node = stack.back();
        stack.pop_back();
        if (!seen.insert(node).second || node->name() == "AccumulateGrad") continue;
        INFO("backward op " << node->name());
        CHECK(node->name() != "to");
        CHECK(node->output.dtype == dtype);
        for (const Edge& e : node->next_edges)
            if (e.valid()) stack.push_back(e.node.get());
    }
}

}  // namespace tinyamp::test
