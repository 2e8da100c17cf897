#pragma once
/// \file
/// nn::Flatten: merges dims start_dim..end_dim into one, as torch.nn.Flatten.
///
/// The default keeps the batch dim: `[N, C, H, W] -> [N, C*H*W]`, the step from convolutions
/// to a Linear.

#include <cstdint>

#include "tinyamp/nn/module.h"

namespace tinyamp::nn {

/// Merges dims start_dim..end_dim (both included) into one, as torch.nn.Flatten.
///
/// The forward is the op `Tensor::reshape`: a view when it can be, recorded for autograd, and
/// the dtype is unchanged. A dim out of range for the input is an Error(index); start_dim
/// after end_dim (once negative dims are counted from the end) is an Error(value).
class Flatten : public Module {
public:
    /// Negative dims count from the end; the default merges everything but the first dim.
    explicit Flatten(std::int64_t start = 1, std::int64_t end = -1) : start_dim(start), end_dim(end) {}

    /// `input` with dims start_dim..end_dim merged (a 0-D input counts as [1]).
    Tensor forward(const Tensor& input) override;
    std::string type_name() const override { return "Flatten"; }
    std::string extra_repr() const override;

    const std::int64_t start_dim;  ///< the first dim merged
    const std::int64_t end_dim;    ///< the last dim merged (-1: the last dim)
};

}  // namespace tinyamp::nn
