#include "tinyamp/optim/sgd.h"

#include "tinyamp/tensor/factories.h"
#include "tinyamp/support/grad_mode.h"
#include "tinyamp/optim/update_loop.h"

namespace tinyamp::optim {
namespace {

void check(const SGDOptions& o)
{
    detail::check_non_negative("learning rate", o.lr);
    detail::check_non_negative("momentum value", o.momentum);
    detail::check_non_negative("weight_decay value", o.weight_decay);
    TINYAMP_CHECK(!o.nesterov || (o.momentum > 0 && o.dampening == 0), value, "Nesterov momentum requires a momentum and zero dampening");
}

}  // namespace

SGD::SGD(std::vector<Tensor> params, SGDOptions options) : SGD(std::vector<ParamGroup>{ParamGroup{std::move(params), options.lr}}, options) {}

SGD::SGD(std::vector<ParamGroup> groups, SGDOptions options) : Optimizer(std::move(groups), options.lr), options_(options) { check(options); }

void SGD::apply_update()
{
    NoGradGuard no_grad;
    const SGDOptions o = options_;
    for_each_param_with_grad([&](const ParamGroup& group, const Tensor& p, std::size_t index) {
        // PyTorch's single-tensor SGD, operation for operation (kernels/optimizer_rules.h, SgdRule).
        detail::SgdScalars scalars{.lr = group.lr, .weight_decay = o.weight_decay, .momentum = o.momentum, .dampening = o.dampening,
                                   .nesterov = o.nesterov, .first = false};
        if (o.momentum == 0) {
            detail::update_elements<detail::SgdRule>(p, p.grad(), Tensor(), Tensor(), scalars);
            return;
        }
        auto& state = state_at(index);
        scalars.first = !state.count("momentum_buffer");
        if (scalars.first) state["momentum_buffer"] = zeros_like(p);
        detail::update_elements<detail::SgdRule>(p, p.grad(), state["momentum_buffer"], Tensor(), scalars);
    });
}

Tensor SGD::momentum_buffer(const Tensor& param) const
{
    const auto& s = state(param);
    auto it = s.find("momentum_buffer");
    return it == s.end() ? Tensor() : it->second;
}

std::map<std::string, double> SGD::options() const
{
    return {{"momentum", options_.momentum},
            {"dampening", options_.dampening},
            {"weight_decay", options_.weight_decay},
            {"nesterov", options_.nesterov ? 1.0 : 0.0}};
}

void SGD::set_options(const std::map<std::string, double>& o)
{
    SGDOptions next = options_;
    if (o.count("momentum")) next.momentum = o.at("momentum");
    if (o.count("dampening")) next.dampening = o.at("dampening");
    if (o.count("weight_decay")) next.weight_decay = o.at("weight_decay");
    if (o.count("nesterov")) next.nesterov = o.at("nesterov") != 0;
    check(next);
    options_ = next;
}

}  // namespace tinyamp::optim
