#include "tinyamp/autograd/context.h"

namespace tinyamp {

void Context::save_for_backward(std::vector<Tensor> tensors)
{
    if (!recorded_) return;
    saved_ = std::move(tensors);
    saved_versions_.clear();
    for (const Tensor& t : saved_) saved_versions_.push_back(t.defined() ? t.storage()->version() : 0);
}

const std::vector<Tensor>& Context::saved_tensors() const
{
    TINYAMP_CHECK(!released_, state, "trying to backward through the graph a second time (op '", op_name_,
                  "' already freed its saved tensors). Saved values are freed when backward() runs; "
                  "call backward(grad, /*retain_graph=*/true) the first time if you need to go through the graph again");
    for (std::size_t i = 0; i < saved_.size(); ++i)
        TINYAMP_CHECK(!saved_[i].defined() || saved_[i].storage()->version() == saved_versions_[i], state,
                      "a tensor that op '", op_name_, "' saved for backward (saved tensor ", i, ", shape ", shape_str(saved_[i].shape()),
                      ") was modified in place after it was saved (version ", saved_versions_[i], ", now ", saved_[i].storage()->version(),
                      "); its gradient would be wrong. Modify a clone() instead, or do the in-place update after backward()");
    return saved_;
}

bool Context::needs_input_grad(std::size_t i) const { return i < needs_input_grad_.size() && needs_input_grad_[i]; }

void Context::set_op(const char* name, InputFlags needs_input_grad, bool recorded)
{
    op_name_ = name;
    needs_input_grad_ = std::move(needs_input_grad);
    recorded_ = recorded;
}

void Context::release()
{
    saved_.clear();
    released_ = true;
}

}  // namespace tinyamp
