#include "tinyamp/nn/dropout_layer.h"

#include <vector>

#include "tinyamp/tensor/factories.h"
#include "tinyamp/ops/elementwise.h"

namespace tinyamp::nn {

Dropout::Dropout(double p_, std::optional<std::uint64_t> seed) : p(p_)
{
    TINYAMP_CHECK(p >= 0 && p <= 1, value, "dropout probability has to be between 0 and 1, but got ", py_float(p));
    if (seed) generator_.emplace(*seed);
}

Tensor Dropout::forward(const Tensor& input)
{
    if (!is_training() || p == 0) return input;
    TINYAMP_CHECK(is_floating_point(input.dtype()), dtype, "Dropout needs a floating point input, got ", dtype_name(input.dtype()));
    // Each element is kept (1/(1-p)) or dropped (0) with one uniform draw; p == 1 drops them all.
    // The mask is made by a factory, so it has no grad; in input's dtype, so mul does not promote.
    Generator& generator = generator_ ? *generator_ : default_generator();
    const double scale = p < 1 ? 1.0 / (1.0 - p) : 0.0;
    std::vector<double> mask(std::size_t(input.numel()));
    for (double& m : mask) m = generator.uniform() < p ? 0.0 : scale;
    return mul(input, tensor(mask, input.shape(), input.dtype(), input.device()));
}

std::string Dropout::extra_repr() const { return "p=" + py_float(p) + ", inplace=False"; }

}  // namespace tinyamp::nn
