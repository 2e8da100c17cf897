#pragma once
/// \file
/// nn::Dropout, as torch.nn.Dropout: random zeros in training, the identity in eval.
///
/// In training, each element is zeroed with probability p and the survivors are scaled by
/// 1/(1-p), so the expected value is unchanged; in eval it is the identity.
/// The mask is an ordinary tensor multiplied in with the op tinyamp::mul, so traces and autograd see
/// it (the gradient is the same mask).
///
/// \code
///     auto drop = std::make_shared<nn::Dropout>(0.1);       // masks from default_generator()
///     auto fixed = std::make_shared<nn::Dropout>(0.1, 42);  // masks from its own Generator(42)
/// \endcode

#include <cstdint>
#include <optional>

#include "tinyamp/support/generator.h"
#include "tinyamp/nn/module.h"

namespace tinyamp::nn {

/// Zeroes each element with probability p in training and scales the rest by 1/(1-p), as
/// torch.nn.Dropout; the identity in eval mode.
///
/// The mask is made in the input's dtype, so the output keeps the input's dtype (f16 under
/// autocast stays f16: mul is not in autocast's tables). A training forward with p > 0 needs a
/// floating point input (Error(dtype) otherwise); in eval mode or with p = 0 the forward
/// returns `input` itself.
class Dropout : public Module {
public:
    /// `p` must be in [0, 1] (Error(value) otherwise). With a `seed` the layer draws its masks
    /// from its own Generator(seed); without one, from default_generator().
    explicit Dropout(double p = 0.5, std::optional<std::uint64_t> seed = std::nullopt);

    /// In training, `input` times a fresh random mask (zeros and 1/(1-p)); in eval or with
    /// p = 0, `input` itself.
    Tensor forward(const Tensor& input) override;
    std::string type_name() const override { return "Dropout"; }
    std::string extra_repr() const override;

    const double p;  ///< the probability that an element is zeroed

private:
    std::optional<Generator> generator_;  // empty: draw from default_generator()
};

}  // namespace tinyamp::nn
