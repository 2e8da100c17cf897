#pragma once
// Loss modules, as torch.nn's: each holds its settings and calls the functional op of ops/loss.h.
// A loss takes two tensors, so call it as loss(input, target); the single-input forward every
// Module has is an error on them.
//
//     nn::CrossEntropyLoss criterion;              // or std::make_shared<nn::CrossEntropyLoss>()
//     Tensor loss = criterion(logits, labels);     // == cross_entropy(logits, labels)

#include <cstdint>

#include "tinyamp/nn/module.h"
#include "tinyamp/ops/loss.h"

namespace tinyamp::nn {

/// What the losses share: the reduction, and the two-input call.
class Loss : public Module {
public:
    using Module::forward;     // the single-input forward stays visible (and throws)
    using Module::operator();
    virtual Tensor forward(const Tensor& input, const Tensor& target) = 0;
    Tensor operator()(const Tensor& input, const Tensor& target) { return forward(input, target); }

    const Reduction reduction;

protected:
    explicit Loss(Reduction how) : reduction(how) {}
};

/// cross_entropy(logits [N, C], target i64 [N]).
class CrossEntropyLoss : public Loss {
public:
    explicit CrossEntropyLoss(Reduction how = Reduction::mean, std::int64_t ignore = -100) : Loss(how), ignore_index(ignore) {}
    using Loss::forward;
    Tensor forward(const Tensor& input, const Tensor& target) override;
    std::string type_name() const override { return "CrossEntropyLoss"; }

    const std::int64_t ignore_index;
};

/// nll_loss(log_probs [N, C], target i64 [N]).
class NLLLoss : public Loss {
public:
    explicit NLLLoss(Reduction how = Reduction::mean, std::int64_t ignore = -100) : Loss(how), ignore_index(ignore) {}
    using Loss::forward;
    Tensor forward(const Tensor& input, const Tensor& target) override;
    std::string type_name() const override { return "NLLLoss"; }

    const std::int64_t ignore_index;
};

/// mse_loss(input, target), both of one shape.
class MSELoss : public Loss {
public:
    explicit MSELoss(Reduction how = Reduction::mean) : Loss(how) {}
    using Loss::forward;
    Tensor forward(const Tensor& input, const Tensor& target) override;
    std::string type_name() const override { return "MSELoss"; }
};

/// binary_cross_entropy(probs, target).
class BCELoss : public Loss {
public:
    explicit BCELoss(Reduction how = Reduction::mean) : Loss(how) {}
    using Loss::forward;
    Tensor forward(const Tensor& input, const Tensor& target) override;
    std::string type_name() const override { return "BCELoss"; }
};

/// binary_cross_entropy_with_logits(logits, target, pos_weight). A given pos_weight is a buffer (as
/// in PyTorch), so it is saved in the state_dict and converted by to(dtype).
class BCEWithLogitsLoss : public Loss {
public:
    explicit BCEWithLogitsLoss(Reduction reduction = Reduction::mean, const Tensor& pos_weight = Tensor());
    using Loss::forward;
    Tensor forward(const Tensor& input, const Tensor& target) override;
    std::string type_name() const override { return "BCEWithLogitsLoss"; }

    Tensor pos_weight;  ///< undefined when not given
};

}  // namespace tinyamp::nn
