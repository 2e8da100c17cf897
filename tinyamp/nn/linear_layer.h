#pragma once
/// \file
/// nn::Linear: y = x W^T + b, as torch.nn.Linear.
///
/// The forward is the op tinyamp::linear, so under autocast it runs in the region's low dtype
/// while weight and bias stay f32 master weights.
///
/// \code
///     auto fc = std::make_shared<nn::Linear>(64, 256);   // weight [256, 64], bias [256]
///     Tensor y = (*fc)(x);                                // x [..., 64] -> y [..., 256]
/// \endcode

#include <cstdint>

#include "tinyamp/nn/module.h"
#include "tinyamp/ops/float8.h"

namespace tinyamp::nn {

/// PyTorch's default init of Linear and Conv2d weights and biases: U(-bound, bound) in f32, drawn
/// from default_generator() (so manual_seed makes a model again). kaiming_uniform_(a=sqrt(5))
/// comes down to bound = 1/sqrt(fan_in). The values are drawn directly, not with ops, so no
/// trace or graph sees the init.
Tensor uniform_init(const Shape& shape, double bound);

/// A fully connected layer, y = x W^T + b, as torch.nn.Linear.
///
/// weight and bias are f32 parameters (until to(dtype)). The forward is the op tinyamp::linear:
/// outside autocast the input must have the weight's dtype (linear does not promote: an f16
/// input against f32 weights is an Error(dtype)); under amp::autocast, linear is
/// lower_precision_fp, so the input, weight and bias are cast to the region's dtype (f16 or
/// bf16; the f32 parameters are cast once per region, through the cast cache) and the output
/// has that dtype.
class Linear : public Module {
public:
    /// weight [out_features, in_features] and bias [out_features] drawn by uniform_init with
    /// bound 1/sqrt(in_features), as PyTorch. Error(value) unless both sizes are positive.
    Linear(std::int64_t in_features, std::int64_t out_features, bool bias = true);

    /// linear(input, weight, bias): [..., in_features] to [..., out_features], in the dtype
    /// described above (the input's, or the autocast dtype). Inside an amp::fp8_autocast region,
    /// fp8_linear with the region's recipe instead (f32 output; see ops/float8.h).
    Tensor forward(const Tensor& input) override;
    std::string type_name() const override { return "Linear"; }
    std::string extra_repr() const override;

    const std::int64_t in_features;   ///< the size of the input's last dim
    const std::int64_t out_features;  ///< the size of the output's last dim
    Tensor weight;  ///< [out_features, in_features]
    Tensor bias;    ///< [out_features], or undefined when made with bias = false
    /// The delayed-scaling state (amax histories and scales of input, weight and output
    /// gradient) of this layer, made on its first call in an fp8_autocast region with a
    /// DelayedScaling recipe; null before (and for the other recipes, which keep no state).
    std::shared_ptr<Fp8LinearState> fp8_state;
};

}  // namespace tinyamp::nn
