#pragma once
/// \file
/// Normalization layers, as in PyTorch: LayerNorm, BatchNorm1d and BatchNorm2d.
///
/// LayerNorm normalizes each sample over its last dims;
/// BatchNorm1d/2d normalize each channel over the batch, keeping running statistics (buffers named
/// as PyTorch's, so state_dicts match) for evaluation.
///
/// \code
///     auto bn = std::make_shared<nn::BatchNorm2d>(16);
///     Tensor y = (*bn)(x);   // training: batch statistics, and the running ones are updated
///     bn->eval();
///     y = (*bn)(x);          // eval: the running statistics
/// \endcode
///
/// Dtypes: the statistics of f16/bf16 inputs are computed in f32 and the output has the input's
/// dtype, whatever the dtype of the (f32) weight and bias.

#include <cstdint>

#include "tinyamp/nn/module.h"

namespace tinyamp::nn {

/// Normalizes each sample over its last dims, as torch.nn.LayerNorm:
/// y = (x - mean) / sqrt(var + eps) * weight + bias, with the biased variance.
///
/// The forward is the op tinyamp::layer_norm. Under CUDA autocast layer_norm is in the fp32
/// policy (f16/bf16 inputs are cast to f32, so the output is f32); CPU autocast leaves it alone,
/// and it runs in the input's dtype. The input's last dims must equal normalized_shape
/// (Error(shape)), and it must be floating point (Error(dtype)).
class LayerNorm : public Module {
public:
    /// LayerNorm(Shape{3, 4}) normalizes over last dims of sizes 3 and 4. An empty shape is an
    /// Error(shape).
    explicit LayerNorm(Shape normalized_shape, double eps = 1e-5, bool elementwise_affine = true);
    /// LayerNorm(64) normalizes over a last dim of size 64, as nn.LayerNorm(64).
    explicit LayerNorm(std::int64_t normalized_size, double eps = 1e-5, bool elementwise_affine = true);

    /// layer_norm(input, normalized_shape, weight, bias, eps); the output has the input's shape.
    Tensor forward(const Tensor& input) override;
    std::string type_name() const override { return "LayerNorm"; }
    std::string extra_repr() const override;

    const Shape normalized_shape;   ///< the sizes of the last dims that are normalized over
    const double eps;               ///< added to the variance before the square root
    const bool elementwise_affine;  ///< whether weight and bias exist (learned scale and shift)
    Tensor weight;  ///< ones(normalized_shape), or undefined without elementwise_affine
    Tensor bias;    ///< zeros(normalized_shape), likewise
};

/// What BatchNorm1d and BatchNorm2d share (PyTorch's `_BatchNorm`); they differ in the input ranks
/// they accept.
///
/// The forward is the op tinyamp::batch_norm, CPU only (Error(device) for CUDA tensors). In
/// training it normalizes with the batch's mean and biased variance and updates running_mean
/// and running_var in place: running = (1 - momentum) * running + momentum * batch statistic,
/// with the unbiased variance; in eval it uses the running statistics (or, without
/// track_running_stats, the batch's). batch_norm is in no autocast table, so the output has the
/// input's dtype (statistics in f32 for f16/bf16). A training batch with one value per channel
/// is an Error(value), as in PyTorch.
class BatchNormBase : public Module {
public:
    /// Checks the input's rank, then batch_norm with this layer's statistics and mode; in
    /// training with track_running_stats it also updates the running statistics and counts the
    /// batch in num_batches_tracked. The output has the input's shape.
    Tensor forward(const Tensor& input) override;
    std::string extra_repr() const override;

    const std::int64_t num_features;  ///< C, the channels of the input (dim 1)
    const double eps;                 ///< added to the variance before the square root
    const double momentum;            ///< weight of the batch statistic in the running update
    const bool affine;                ///< whether weight and bias exist (learned scale and shift)
    const bool track_running_stats;   ///< whether the running statistics are kept (and used in eval)
    Tensor weight;               ///< ones [num_features], or undefined without affine
    Tensor bias;                 ///< zeros [num_features], likewise
    Tensor running_mean;         ///< zeros [num_features] f32, or undefined without track_running_stats
    Tensor running_var;          ///< ones [num_features] f32, likewise
    Tensor num_batches_tracked;  ///< 0-D i64: training forwards so far, likewise

protected:
    /// Registers the parameters and buffers of an enabled affine / track_running_stats.
    /// Error(value) unless num_features is positive.
    BatchNormBase(std::int64_t num_features, double eps, double momentum, bool affine, bool track_running_stats);
    /// Throws PyTorch's "expected 4D input (got 2D input)" for a rank this layer does not take.
    virtual void check_input_dim(const Tensor& input) const = 0;
};

/// Input [N, C] or [N, C, L], as torch.nn.BatchNorm1d; another rank is an Error(shape).
class BatchNorm1d : public BatchNormBase {
public:
    /// A batch norm over `num_features` channels, with PyTorch's defaults.
    explicit BatchNorm1d(std::int64_t num_features, double eps = 1e-5, double momentum = 0.1, bool affine = true,
                         bool track_running_stats = true);
    std::string type_name() const override { return "BatchNorm1d"; }

protected:
    void check_input_dim(const Tensor& input) const override;
};

/// Input [N, C, H, W], as torch.nn.BatchNorm2d; another rank is an Error(shape).
class BatchNorm2d : public BatchNormBase {
public:
    /// A batch norm over `num_features` channels, with PyTorch's defaults.
    explicit BatchNorm2d(std::int64_t num_features, double eps = 1e-5, double momentum = 0.1, bool affine = true,
                         bool track_running_stats = true);
    std::string type_name() const override { return "BatchNorm2d"; }

protected:
    void check_input_dim(const Tensor& input) const override;
};

}  // namespace tinyamp::nn
