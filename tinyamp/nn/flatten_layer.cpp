#include "tinyamp/nn/flatten_layer.h"

#include <algorithm>
#include <string>

namespace tinyamp::nn {

Tensor Flatten::forward(const Tensor& input)
{
    // A 0-D input counts as one dim of size 1, as in PyTorch (flatten gives shape [1]).
    const std::int64_t ndim = std::max<std::int64_t>(input.dim(), 1);
    const std::int64_t start = wrap_dim(start_dim, ndim), end = wrap_dim(end_dim, ndim);
    TINYAMP_CHECK(start <= end, value, "Flatten: start_dim ", start_dim, " comes after end_dim ", end_dim, " for an input of shape ",
                  shape_str(input.shape()));
    Shape shape;
    for (std::int64_t d = 0; d < start; ++d) shape.push_back(input.size(d));
    std::int64_t merged = 1;
    for (std::int64_t d = start; d <= end && d < input.dim(); ++d) merged *= input.size(d);
    shape.push_back(merged);
    for (std::int64_t d = end + 1; d < input.dim(); ++d) shape.push_back(input.size(d));
    // The Tensor member reshape is a dispatched op: a view when it can be, recorded for autograd.
    return input.reshape(shape);
}

std::string Flatten::extra_repr() const
{
    return "start_dim=" + std::to_string(start_dim) + ", end_dim=" + std::to_string(end_dim);
}

}  // namespace tinyamp::nn
