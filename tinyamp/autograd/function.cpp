#include "tinyamp/autograd/function.h"

namespace tinyamp {

void Context::save_for_backward(std::vector<Tensor> tensors) { saved_ = std::move(tensors); }

const std::vector<Tensor>& Context::saved_tensors() const
{
    TINYAMP_CHECK(!released_, state, "trying to backward through the graph a second time (op '", op_name_,
                  "' already freed its saved tensors). Saved values are freed when backward() runs; "
                  "call backward(grad, /*retain_graph=*/true) the first time if you need to go through the graph again");
    return saved_;
}

bool Context::needs_input_grad(std::size_t i) const { return i < needs_input_grad_.size() && needs_input_grad_[i]; }

void Context::set_op(const char* name, std::vector<bool> needs_input_grad)
{
    op_name_ = name;
    needs_input_grad_ = std::move(needs_input_grad);
}

void Context::release()
{
    saved_.clear();
    released_ = true;
}

}  // namespace tinyamp
