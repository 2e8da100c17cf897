#include <cmath>

#include "tinyamp/autograd/grad_mode.h"
#include "tinyamp/ops/elementwise.h"
#include "tinyamp/ops/reduce.h"
#include "tinyamp/optim/optimizer.h"

namespace tinyamp::optim {

Optimizer::Optimizer(std::vector<ParamGroup> groups) : groups_(std::move(groups))
{
    for (const ParamGroup& g : groups_)
        for (const Tensor& p : g.params)
            TINYAMP_CHECK(p.defined() && p.is_leaf() && p.requires_grad(), value,
                          "an optimizer needs leaf tensors that require grad (parameters); call requires_grad_() on them");
}

void Optimizer::zero_grad()
{
    for (const ParamGroup& g : groups_)
        for (const Tensor& p : g.params) p.set_grad(Tensor());
}

SGD::SGD(std::vector<Tensor> params, SGDOptions options) : Optimizer({ParamGroup{std::move(params), options.lr}}), options_(options)
{
    TINYAMP_CHECK(options.lr >= 0, value, "SGD: invalid learning rate ", options.lr, " (it must be >= 0)");
    TINYAMP_CHECK(!options.nesterov || (options.momentum > 0 && options.dampening == 0), value,
                  "SGD: Nesterov momentum requires a momentum and zero dampening");
    buffers_.resize(param_groups()[0].params.size());
}

void SGD::step()
{
    NoGradGuard no_grad;
    const ParamGroup& group = param_groups()[0];
    for (std::size_t i = 0; i < group.params.size(); ++i) {
        const Tensor& p = group.params[i];
        if (!p.grad().defined()) continue;
        Tensor d = p.grad();
        if (options_.weight_decay != 0) d = add(d, mul(p, options_.weight_decay));
        if (options_.momentum != 0) {
            Tensor& buf = buffers_[i];
            buf = buf.defined() ? add(mul(buf, options_.momentum), mul(d, 1.0 - options_.dampening)) : d.clone();
            d = options_.nesterov ? add(d, mul(buf, options_.momentum)) : buf;
        }
        p.copy_(sub(p, mul(d, group.lr)));
    }
}

Tensor SGD::momentum_buffer(const Tensor& param) const
{
    const auto& params = param_groups()[0].params;
    for (std::size_t i = 0; i < params.size(); ++i)
        if (params[i].is_same(param)) return buffers_[i];
    TINYAMP_FAIL(value, "momentum_buffer: that tensor is not one of this optimizer's parameters");
}

double clip_grad_norm_(const std::vector<Tensor>& params, double max_norm, bool error_if_nonfinite)
{
    NoGradGuard no_grad;
    double total = 0;
    for (const Tensor& p : params)
        if (p.grad().defined()) total += sum(mul(p.grad(), p.grad()), DType::f64).item();
    const double norm = std::sqrt(total);
    TINYAMP_CHECK(std::isfinite(norm) || !error_if_nonfinite, value, "clip_grad_norm_: the total norm of the gradients is ", norm,
                  "; pass error_if_nonfinite=false to clip anyway");
    const double coef = max_norm / (norm + 1e-6);
    if (coef < 1.0)
        for (const Tensor& p : params)
            if (p.grad().defined()) p.grad().copy_(mul(p.grad(), coef));
    return norm;
}

}  // namespace tinyamp::optim
