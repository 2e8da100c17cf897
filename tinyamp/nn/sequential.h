#pragma once
/// \file
/// nn::Sequential: modules applied one after another, named "0", "1", ... as in PyTorch.
///
/// \code
///     auto model = std::make_shared<nn::Sequential>(std::vector<std::shared_ptr<nn::Module>>{
///         std::make_shared<nn::Linear>(64, 256), std::make_shared<nn::ReLU>(),
///         std::make_shared<nn::Linear>(256, 10)});
///     model->emplace_back<nn::Dropout>(0.1);   // or build it up one layer at a time
/// \endcode

#include <memory>
#include <vector>

#include "tinyamp/nn/module.h"

namespace tinyamp::nn {

/// Modules applied one after another, as torch.nn.Sequential. The children are named "0", "1",
/// ... in order, so their parameters are "0.weight", "0.bias", ... as in PyTorch's state_dict.
/// The forward passes each module's output to the next; dtypes flow through unchanged, so under
/// autocast each layer's op decides its own dtype.
class Sequential : public Module {
public:
    /// An empty Sequential; add layers with push_back or emplace_back.
    Sequential() = default;
    /// The given modules, in order, named "0", "1", ... (Error(value) for a null one).
    explicit Sequential(const std::vector<std::shared_ptr<Module>>& modules);

    /// Appends a module under the next index as its name.
    void push_back(std::shared_ptr<Module> module);
    /// Makes a module in place and appends it: `model.emplace_back<nn::Linear>(64, 256)`.
    /// Returns the new module, with its own type.
    template <class M, class... Args>
    std::shared_ptr<M> emplace_back(Args&&... args)
    {
        auto module = std::make_shared<M>(std::forward<Args>(args)...);
        push_back(module);
        return module;
    }

    /// Calls each module's forward on the previous one's output; an empty Sequential returns
    /// `input` itself.
    Tensor forward(const Tensor& input) override;
    std::string type_name() const override { return "Sequential"; }

    /// The number of modules.
    std::size_t size() const { return named_children().size(); }
    /// The module at `index` (negative counts from the end); Error(index) when out of range.
    std::shared_ptr<Module> operator[](std::int64_t index) const;
};

}  // namespace tinyamp::nn
