#include "tinyamp/optim/adam.h"

#include <cmath>

#include "tinyamp/tensor/factories.h"
#include "tinyamp/support/grad_mode.h"
#include "tinyamp/optim/update_loop.h"

namespace tinyamp::optim {
namespace {

void check(const AdamOptions& o)
{
    detail::check_non_negative("learning rate", o.lr);
    detail::check_non_negative("epsilon value", o.eps);
    TINYAMP_CHECK(o.beta1 >= 0 && o.beta1 < 1, value, "Invalid beta parameter at index 0: ", o.beta1, " (it must be in [0, 1))");
    TINYAMP_CHECK(o.beta2 >= 0 && o.beta2 < 1, value, "Invalid beta parameter at index 1: ", o.beta2, " (it must be in [0, 1))");
    detail::check_non_negative("weight_decay value", o.weight_decay);
}

std::vector<ParamGroup> one_group(std::vector<Tensor> params, double lr) { return {ParamGroup{std::move(params), lr}}; }

AdamOptions as_adam(const AdamWOptions& o) { return {o.lr, o.beta1, o.beta2, o.eps, o.weight_decay}; }

}  // namespace

Adam::Adam(std::vector<Tensor> params, AdamOptions options) : Adam(one_group(std::move(params), options.lr), options, false) {}
Adam::Adam(std::vector<ParamGroup> groups, AdamOptions options) : Adam(std::move(groups), options, false) {}
Adam::Adam(std::vector<ParamGroup> groups, AdamOptions options, bool decoupled_weight_decay)
    : Optimizer(std::move(groups), options.lr), options_(options), decoupled_(decoupled_weight_decay)
{
    check(options);
}

AdamW::AdamW(std::vector<Tensor> params, AdamWOptions options) : Adam(one_group(std::move(params), options.lr), as_adam(options), true) {}
AdamW::AdamW(std::vector<ParamGroup> groups, AdamWOptions options) : Adam(std::move(groups), as_adam(options), true) {}

void Adam::apply_update()
{
    NoGradGuard no_grad;
    const AdamOptions o = options_;
    for_each_param_with_grad([&](const ParamGroup& group, const Tensor& p, std::size_t index) {
        auto& state = state_at(index);
        if (!state.count("step")) {
            state["step"] = zeros({}, f32);  // a 0-d f32 tensor, as PyTorch keeps it
            state["exp_avg"] = zeros_like(p);
            state["exp_avg_sq"] = zeros_like(p);
        }
        const double t = state["step"].item() + 1;
        state["step"].set(std::vector<std::int64_t>{}, t);
        // The scalars are computed in f64 once per tensor, then used in the parameter's dtype.
        const double lr = group.lr;
        const double bias_correction1 = 1 - std::pow(o.beta1, t);
        const double bias_correction2_sqrt = std::sqrt(1 - std::pow(o.beta2, t));
        const double step_size = lr / bias_correction1;
        // PyTorch's single-tensor Adam, operation for operation (kernels/optimizer_rules.h, AdamRule).
        const detail::AdamScalars scalars{.lr = lr,
                                          .beta1 = o.beta1,
                                          .beta2 = o.beta2,
                                          .eps = o.eps,
                                          .weight_decay = o.weight_decay,
                                          .bias_correction2_sqrt = bias_correction2_sqrt,
                                          .step_size = step_size,
                                          .decoupled = decoupled_};
        detail::update_elements<detail::AdamRule>(p, p.grad(), state["exp_avg"], state["exp_avg_sq"], scalars);
    });
}

std::map<std::string, double> Adam::options() const
{
    return {{"beta1", options_.beta1}, {"beta2", options_.beta2}, {"eps", options_.eps}, {"weight_decay", options_.weight_decay}};
}

void Adam::set_options(const std::map<std::string, double>& o)
{
    AdamOptions next = options_;
    if (o.count("beta1")) next.beta1 = o.at("beta1");
    if (o.count("beta2")) next.beta2 = o.at("beta2");
    if (o.count("eps")) next.eps = o.at("eps");
    if (o.count("weight_decay")) next.weight_decay = o.at("weight_decay");
    check(next);
    options_ = next;
}

}  // namespace tinyamp::optim
