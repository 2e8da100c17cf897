#include "tinyamp/nn/activation_layers.h"

#include "tinyamp/ops/elementwise.h"

namespace tinyamp::nn {

Tensor ReLU::forward(const Tensor& input) { return relu(input); }

Tensor GELU::forward(const Tensor& input) { return gelu(input); }

}  // namespace tinyamp::nn
