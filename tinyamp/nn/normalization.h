#pragma once
// Normalization layers, as in PyTorch: LayerNorm normalizes each sample over its last dims;
// BatchNorm1d/2d normalize each channel over the batch, keeping running statistics (buffers named
// as PyTorch's, so state_dicts match) for evaluation.
//
//     auto bn = std::make_shared<nn::BatchNorm2d>(16);
//     Tensor y = (*bn)(x);   // training: batch statistics, and the running ones are updated
//     bn->eval();
//     y = (*bn)(x);          // eval: the running statistics

#include <cstdint>

#include "tinyamp/nn/module.h"

namespace tinyamp::nn {

class LayerNorm : public Module {
public:
    /// LayerNorm(Shape{3, 4}) normalizes over last dims of sizes 3 and 4.
    explicit LayerNorm(Shape normalized_shape, double eps = 1e-5, bool elementwise_affine = true);
    /// LayerNorm(64) normalizes over a last dim of size 64, as nn.LayerNorm(64).
    explicit LayerNorm(std::int64_t normalized_size, double eps = 1e-5, bool elementwise_affine = true);

    Tensor forward(const Tensor& input) override;
    std::string type_name() const override { return "LayerNorm"; }
    std::string extra_repr() const override;

    const Shape normalized_shape;
    const double eps;
    const bool elementwise_affine;
    Tensor weight;  ///< ones(normalized_shape), or undefined without elementwise_affine
    Tensor bias;    ///< zeros(normalized_shape), likewise
};

/// What BatchNorm1d and BatchNorm2d share (PyTorch's _BatchNorm); they differ in the input ranks
/// they accept.
class BatchNormBase : public Module {
public:
    Tensor forward(const Tensor& input) override;
    std::string extra_repr() const override;

    const std::int64_t num_features;
    const double eps;
    const double momentum;
    const bool affine;
    const bool track_running_stats;
    Tensor weight;               ///< ones [num_features], or undefined without affine
    Tensor bias;                 ///< zeros [num_features], likewise
    Tensor running_mean;         ///< zeros [num_features] f32, or undefined without track_running_stats
    Tensor running_var;          ///< ones [num_features] f32, likewise
    Tensor num_batches_tracked;  ///< 0-D i64: training forwards so far, likewise

protected:
    BatchNormBase(std::int64_t num_features, double eps, double momentum, bool affine, bool track_running_stats);
    /// Throws PyTorch's "expected 4D input (got 2D input)" for a rank this layer does not take.
    virtual void check_input_dim(const Tensor& input) const = 0;
};

/// Input [N, C] or [N, C, L].
class BatchNorm1d : public BatchNormBase {
public:
    explicit BatchNorm1d(std::int64_t num_features, double eps = 1e-5, double momentum = 0.1, bool affine = true,
                         bool track_running_stats = true);
    std::string type_name() const override { return "BatchNorm1d"; }

protected:
    void check_input_dim(const Tensor& input) const override;
};

/// Input [N, C, H, W].
class BatchNorm2d : public BatchNormBase {
public:
    explicit BatchNorm2d(std::int64_t num_features, double eps = 1e-5, double momentum = 0.1, bool affine = true,
                         bool track_running_stats = true);
    std::string type_name() const override { return "BatchNorm2d"; }

protected:
    void check_input_dim(const Tensor& input) const override;
};

}  // namespace tinyamp::nn
