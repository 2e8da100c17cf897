#include "tinyamp/autograd/record.h"

namespace tinyamp::autograd {

void check_gradient_count(const char* op, std::size_t got, std::size_t expected)
{
    TINYAMP_CHECK(got == expected, state, "backward of '", op, "' returned ", got, " gradient(s) but its forward took ", expected,
                  " tensor argument(s); return one per tensor argument (an undefined Tensor where there is none)");
}

void check_same_device(const char* op, const std::vector<Tensor>& inputs)
{
    const Tensor* first = nullptr;
    std::size_t first_index = 0;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        // As in PyTorch, a 0-D CPU tensor (a plain number, as in mul(x, 2.0)) may join tensors on a GPU.
        if (!inputs[i].defined() || (inputs[i].device().is_cpu() && inputs[i].dim() == 0)) continue;
        if (!first) {
            first = &inputs[i];
            first_index = i;
            continue;
        }
        TINYAMP_CHECK(inputs[i].device() == first->device(), device, op, ": expected all tensors on one device, but input ", first_index,
                      " is on ", first->device(), " and input ", i, " is on ", inputs[i].device(), "; move them with .to(device) first");
    }
}

InputFlags inputs_needing_grad(const std::vector<Tensor>& inputs)
{
    InputFlags needs(inputs.size());
    for (std::size_t i = 0; i < inputs.size(); ++i) needs[i] = inputs[i].defined() && inputs[i].requires_grad();
    return needs;
}

Tensor connect(const Tensor& output, const std::shared_ptr<Node>& node, const std::vector<Tensor>& inputs)
{
    node->sequence_nr = next_sequence_nr();
    node->next_edges.reserve(inputs.size());
    node->inputs.reserve(inputs.size());
    for (const Tensor& t : inputs) {
        node->next_edges.push_back(t.defined() ? gradient_edge(t) : Edge{});
        node->inputs.push_back(t.defined() ? meta_of(t) : TensorMeta{});
    }
    node->output = meta_of(output);
    // A new handle, so the tensor forward saved for backward (if it saved its output) does not
    // point back at this node, and an op that returned its input unchanged does not relabel it.
    Tensor result = output.detach();
    result.impl()->grad_fn = node;
    return result;
}

}  // namespace tinyamp::autograd
