#include "tinyamp/nn/linear_layer.h"

#include <cmath>
#include <string>
#include <vector>

#include "tinyamp/tensor/factories.h"
#include "tinyamp/amp/fp8_autocast.h"
#include "tinyamp/ops/matmul.h"

namespace tinyamp::nn {

Tensor uniform_init(const Shape& shape, double bound)
{
    // Drawn directly (not with ops), so no trace or graph sees the init. PyTorch's uniform_ is
    // from + (to - from) * u too.
    Generator& generator = default_generator();
    std::vector<double> values(std::size_t(numel(shape)));
    for (double& v : values) v = -bound + 2 * bound * generator.uniform();
    return tensor(values, shape, f32);
}

Linear::Linear(std::int64_t in, std::int64_t out, bool with_bias) : in_features(in), out_features(out)
{
    TINYAMP_CHECK(in > 0 && out > 0, value, "Linear(", in, ", ", out, "): in_features and out_features must be positive");
    const double bound = 1.0 / std::sqrt(double(in));
    weight = register_parameter("weight", uniform_init({out, in}, bound));
    if (with_bias) bias = register_parameter("bias", uniform_init({out}, bound));
}

Tensor Linear::forward(const Tensor& input)
{
    if (!amp::is_fp8_autocast_enabled()) return linear(input, weight, bias);
    // In an FP8 region: the product in FP8/MX. A delayed recipe's histories live here, one
    // state per layer, made again when the recipe asks for another history length.
    const amp::ScalingRecipe& recipe = amp::fp8_autocast_recipe();
    if (const auto* delayed = std::get_if<amp::DelayedScaling>(&recipe))
        if (!fp8_state || fp8_state->input.history.length() != delayed->amax_history_len)
            fp8_state = std::make_shared<Fp8LinearState>(delayed->amax_history_len);
    return fp8_linear(input, weight, bias, recipe, fp8_state);
}

std::string Linear::extra_repr() const
{
    return "in_features=" + std::to_string(in_features) + ", out_features=" + std::to_string(out_features) +
           ", bias=" + py_bool(bias.defined());
}

}  // namespace tinyamp::nn
