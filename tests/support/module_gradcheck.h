#pragma once
// gradcheck through a module's forward, for the input and the module's weight and bias (Linear,
// Conv2d, LayerNorm, BatchNorm). gradcheck calls the function with its own copies of them, so
// each call puts those copies into the module's public members, which forward reads (as
// PyTorch's functional_call does); the originals are put back afterwards.

#include <doctest/doctest.h>

#include <vector>

#include <tinyamp/tinyamp.h>

namespace tinyamp::test {

template <class M>
void check_module_gradients(M& module, const Tensor& x)
{
    const Tensor weight = module.weight, bias = module.bias;
    auto fn = [&module](const std::vector<Tensor>& in) {
        module.weight = in[1];
        module.bias = in[2];
        return module(in[0]);
    };
    const GradcheckResult r = gradcheck(fn, {x.requires_grad_(), weight, bias});
    module.weight = weight;
    module.bias = bias;
    INFO(r.report);
    CHECK(r.ok);
}

}  // namespace tinyamp::test
