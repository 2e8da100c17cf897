#include "tinyamp/nn/normalization_layers.h"

#include <string>
#include <utility>

#include "tinyamp/tensor/factories.h"
#include "tinyamp/ops/normalization.h"

namespace tinyamp::nn {

// ---------------------------------------------------------------- LayerNorm

LayerNorm::LayerNorm(Shape normalized, double eps_, bool affine) : normalized_shape(std::move(normalized)), eps(eps_), elementwise_affine(affine)
{
    TINYAMP_CHECK(!normalized_shape.empty(), shape, "LayerNorm: normalized_shape is empty; give the sizes of the last dims to normalize over");
    if (elementwise_affine) {
        weight = register_parameter("weight", ones(normalized_shape));
        bias = register_parameter("bias", zeros(normalized_shape));
    }
}

LayerNorm::LayerNorm(std::int64_t size, double eps_, bool affine) : LayerNorm(Shape{size}, eps_, affine) {}

Tensor LayerNorm::forward(const Tensor& input) { return layer_norm(input, normalized_shape, weight, bias, eps); }

std::string LayerNorm::extra_repr() const
{
    // normalized_shape prints as a Python tuple: "(4,)" or "(3, 4)".
    std::string tuple = "(";
    for (std::size_t i = 0; i < normalized_shape.size(); ++i) tuple += (i ? ", " : "") + std::to_string(normalized_shape[i]);
    tuple += normalized_shape.size() == 1 ? ",)" : ")";
    return tuple + ", eps=" + py_float(eps) + ", elementwise_affine=" + py_bool(elementwise_affine);
}

// ---------------------------------------------------------------- BatchNorm

BatchNormBase::BatchNormBase(std::int64_t features, double eps_, double momentum_, bool affine_, bool track)
    : num_features(features), eps(eps_), momentum(momentum_), affine(affine_), track_running_stats(track)
{
    TINYAMP_CHECK(features > 0, value, "BatchNorm: num_features must be positive, got ", features);
    if (affine) {
        weight = register_parameter("weight", ones({features}));
        bias = register_parameter("bias", zeros({features}));
    }
    if (track_running_stats) {
        running_mean = register_buffer("running_mean", zeros({features}));
        running_var = register_buffer("running_var", ones({features}));
        num_batches_tracked = register_buffer("num_batches_tracked", scalar_tensor(0, i64));
    }
}

Tensor BatchNormBase::forward(const Tensor& input)
{
    check_input_dim(input);
    // Without running stats (undefined tensors) the op uses the batch's statistics in eval too.
    Tensor out = batch_norm(input, running_mean, running_var, weight, bias, is_training(), momentum, eps);
    // PyTorch counts training batches even though a fixed momentum does not use the count. (Counted
    // after the op, so an input the op refuses changes nothing.)
    if (is_training() && track_running_stats) num_batches_tracked.set({}, num_batches_tracked.item() + 1);
    return out;
}

std::string BatchNormBase::extra_repr() const
{
    return std::to_string(num_features) + ", eps=" + py_float(eps) + ", momentum=" + py_float(momentum) + ", affine=" + py_bool(affine) +
           ", track_running_stats=" + py_bool(track_running_stats);
}

BatchNorm1d::BatchNorm1d(std::int64_t features, double eps_, double momentum_, bool affine_, bool track)
    : BatchNormBase(features, eps_, momentum_, affine_, track)
{
}

BatchNorm2d::BatchNorm2d(std::int64_t features, double eps_, double momentum_, bool affine_, bool track)
    : BatchNormBase(features, eps_, momentum_, affine_, track)
{
}

void BatchNorm1d::check_input_dim(const Tensor& input) const
{
    TINYAMP_CHECK(input.dim() == 2 || input.dim() == 3, shape, "BatchNorm1d: expected 2D or 3D input (got ", input.dim(),
                  "D input); it normalizes [N, C] or [N, C, L]");
}

void BatchNorm2d::check_input_dim(const Tensor& input) const
{
    TINYAMP_CHECK(input.dim() == 4, shape, "BatchNorm2d: expected 4D input (got ", input.dim(), "D input); it normalizes [N, C, H, W]");
}

}  // namespace tinyamp::nn
