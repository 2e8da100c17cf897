#pragma once
/// \file
/// Loss modules, as torch.nn's: each holds its settings and calls the functional op of ops/loss.h.
///
/// A loss takes two tensors, so call it as loss(input, target); the single-input forward every
/// Module has is an error on them.
///
/// \code
///     nn::CrossEntropyLoss criterion;              // or std::make_shared<nn::CrossEntropyLoss>()
///     Tensor loss = criterion(logits, labels);     // == cross_entropy(logits, labels)
/// \endcode
///
/// Dtypes: every loss op is computed in f32 for f16/bf16 inputs. Outside autocast the result is
/// rounded once into the dtype of the inputs (their promoted dtype where two float inputs
/// differ); under amp::autocast the losses are in the fp32 policy (BCELoss only on the CPU:
/// CUDA autocast refuses it, as PyTorch does), so f16/bf16 inputs are cast to f32 and the loss
/// comes out f32.

#include <cstdint>

#include "tinyamp/nn/module.h"
#include "tinyamp/ops/loss.h"

namespace tinyamp::nn {

/// What the losses share: the reduction, and the two-input call.
class Loss : public Module {
public:
    using Module::forward;     ///< the single-input forward stays visible (and throws)
    using Module::operator();
    /// The loss of `input` against `target`, reduced as `reduction` says.
    virtual Tensor forward(const Tensor& input, const Tensor& target) = 0;
    /// Calls forward(input, target): `criterion(logits, labels)`, as in PyTorch (and, like
    /// Module's operator(), marks the ops with this module's path while a trace records).
    Tensor operator()(const Tensor& input, const Tensor& target);

    const Reduction reduction;  ///< none, mean or sum of the per-element losses (PyTorch's reduction=)

protected:
    /// Sets the reduction; for the subclasses' constructors.
    explicit Loss(Reduction how) : reduction(how) {}
};

/// What CrossEntropyLoss and NLLLoss share (as PyTorch's _WeightedLoss, less the weight): a
/// target of class indices, of which one value, ignore_index, marks the samples to skip.
class ClassIndexLoss : public Loss {
public:
    const std::int64_t ignore_index;  ///< target value that is skipped (PyTorch's default, -100)

protected:
    /// `ignore` is the target value whose samples give 0 and are left out of the mean.
    ClassIndexLoss(Reduction how, std::int64_t ignore) : Loss(how), ignore_index(ignore) {}
};

/// cross_entropy(logits [N, C], target i64 [N]), as torch.nn.CrossEntropyLoss: log-softmax and
/// negative log likelihood in one stable op.
///
/// Errors come from the op: Error(dtype) for integer logits or a target that is not i64,
/// Error(shape) for mismatched shapes, Error(index) for a class index outside [0, C) that is
/// not ignore_index.
class CrossEntropyLoss : public ClassIndexLoss {
public:
    /// `ignore` is the target value whose samples give 0 and are left out of the mean.
    explicit CrossEntropyLoss(Reduction how = Reduction::mean, std::int64_t ignore = -100) : ClassIndexLoss(how, ignore) {}
    using Loss::forward;
    Tensor forward(const Tensor& input, const Tensor& target) override;
    std::string type_name() const override { return "CrossEntropyLoss"; }
};

/// nll_loss(log_probs [N, C], target i64 [N]), as torch.nn.NLLLoss: the input holds log
/// probabilities (a log_softmax output). Errors as CrossEntropyLoss.
class NLLLoss : public ClassIndexLoss {
public:
    /// `ignore` is the target value whose samples give 0 and are left out of the mean.
    explicit NLLLoss(Reduction how = Reduction::mean, std::int64_t ignore = -100) : ClassIndexLoss(how, ignore) {}
    using Loss::forward;
    Tensor forward(const Tensor& input, const Tensor& target) override;
    std::string type_name() const override { return "NLLLoss"; }
};

/// mse_loss(input, target), both of one shape, as torch.nn.MSELoss. Both must be floating point
/// (Error(dtype)) and of the same shape (Error(shape): unlike PyTorch, no broadcasting).
class MSELoss : public Loss {
public:
    /// A mean squared error (or sum, or none) loss.
    explicit MSELoss(Reduction how = Reduction::mean) : Loss(how) {}
    using Loss::forward;
    Tensor forward(const Tensor& input, const Tensor& target) override;
    std::string type_name() const override { return "MSELoss"; }
};

/// binary_cross_entropy(probs, target), as torch.nn.BCELoss. The input must hold probabilities
/// in [0, 1] (Error(value) otherwise), the target floats of the same shape. CPU only; under CUDA autocast it is banned (Error(state)):
/// use BCEWithLogitsLoss on logits instead.
class BCELoss : public Loss {
public:
    /// A binary cross entropy loss on probabilities.
    explicit BCELoss(Reduction how = Reduction::mean) : Loss(how) {}
    using Loss::forward;
    Tensor forward(const Tensor& input, const Tensor& target) override;
    std::string type_name() const override { return "BCELoss"; }
};

/// binary_cross_entropy_with_logits(logits, target, pos_weight), as torch.nn.BCEWithLogitsLoss.
/// A given pos_weight is a buffer (as in PyTorch), so it is saved in the state_dict and converted
/// by to(dtype). Input and target are floats of one shape, as for MSELoss. CPU only.
class BCEWithLogitsLoss : public Loss {
public:
    /// `pos_weight` (optional) weighs the positive term and must broadcast to the logits' shape
    /// (one weight per class, [C], say); it is registered as the buffer "pos_weight".
    explicit BCEWithLogitsLoss(Reduction reduction = Reduction::mean, const Tensor& pos_weight = Tensor());
    using Loss::forward;
    Tensor forward(const Tensor& input, const Tensor& target) override;
    std::string type_name() const override { return "BCEWithLogitsLoss"; }

    Tensor pos_weight;  ///< undefined when not given
};

}  // namespace tinyamp::nn
