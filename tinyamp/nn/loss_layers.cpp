#include "tinyamp/nn/loss_layers.h"

#include "tinyamp/trace/recorder.h"

namespace tinyamp::nn {

Tensor Loss::operator()(const Tensor& input, const Tensor& target)
{
    if (!trace::current()) return forward(input, target);
    const trace::ModuleScope scope(name(), type_name());
    return forward(input, target);
}

Tensor CrossEntropyLoss::forward(const Tensor& input, const Tensor& target)
{
    return cross_entropy(input, target, reduction, ignore_index);
}

Tensor NLLLoss::forward(const Tensor& input, const Tensor& target) { return nll_loss(input, target, reduction, ignore_index); }

Tensor MSELoss::forward(const Tensor& input, const Tensor& target) { return mse_loss(input, target, reduction); }

Tensor BCELoss::forward(const Tensor& input, const Tensor& target) { return binary_cross_entropy(input, target, reduction); }

BCEWithLogitsLoss::BCEWithLogitsLoss(Reduction how, const Tensor& weight) : Loss(how)
{
    if (weight.defined()) pos_weight = register_buffer("pos_weight", weight);
}

Tensor BCEWithLogitsLoss::forward(const Tensor& input, const Tensor& target)
{
    return binary_cross_entropy_with_logits(input, target, reduction, pos_weight);
}

}  // namespace tinyamp::nn
