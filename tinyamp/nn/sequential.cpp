#include "tinyamp/nn/sequential.h"

namespace tinyamp::nn {

Sequential::Sequential(const std::vector<std::shared_ptr<Module>>& modules)
{
    for (const auto& m : modules) push_back(m);
}

void Sequential::push_back(std::shared_ptr<Module> module)
{
    register_module(std::to_string(size()), std::move(module));
}

Tensor Sequential::forward(const Tensor& input)
{
    Tensor x = input;
    for (const auto& entry : named_children()) x = (*entry.second)(x);  // operator(): traces see each child's name
    return x;
}

std::shared_ptr<Module> Sequential::operator[](std::int64_t index) const
{
    const auto n = std::int64_t(size());
    TINYAMP_CHECK(index >= -n && index < n, index, "Sequential index ", index, " is out of range for ", n, " modules");
    return named_children()[std::size_t(index < 0 ? index + n : index)].second;
}

}  // namespace tinyamp::nn
