#pragma once
// nn::Sequential: modules applied one after another, named "0", "1", ... as in PyTorch.
//
//     auto model = std::make_shared<nn::Sequential>(std::vector<std::shared_ptr<nn::Module>>{
//         std::make_shared<nn::Linear>(64, 256), std::make_shared<nn::ReLU>(),
//         std::make_shared<nn::Linear>(256, 10)});
//     model->emplace_back<nn::Dropout>(0.1);   // or build it up one layer at a time

#include <memory>
#include <vector>

#include "tinyamp/nn/module.h"

namespace tinyamp::nn {

class Sequential : public Module {
public:
    Sequential() = default;
    explicit Sequential(const std::vector<std::shared_ptr<Module>>& modules);

    /// Appends a module under the next index as its name.
    void push_back(std::shared_ptr<Module> module);
    /// Makes a module in place and appends it: model.emplace_back<nn::Linear>(64, 256).
    template <class M, class... Args>
    std::shared_ptr<M> emplace_back(Args&&... args)
    {
        auto module = std::make_shared<M>(std::forward<Args>(args)...);
        push_back(module);
        return module;
    }

    Tensor forward(const Tensor& input) override;
    std::string type_name() const override { return "Sequential"; }

    std::size_t size() const { return named_children().size(); }
    /// The module at `index` (negative counts from the end).
    std::shared_ptr<Module> operator[](std::int64_t index) const;
};

}  // namespace tinyamp::nn
