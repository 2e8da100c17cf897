#include "tinyamp/optim/sgd.h"

#include "tinyamp/core/factories.h"
#include "tinyamp/core/grad_mode.h"
#include "tinyamp/optim/update_loop.h"

namespace tinyamp::optim {
namespace {

void check(const SGDOptions& o)
{
    TINYAMP_CHECK(o.lr >= 0, value, "Invalid learning rate: ", o.lr, " (it must be >= 0)");
    TINYAMP_CHECK(o.momentum >= 0, value, "Invalid momentum value: ", o.momentum, " (it must be >= 0)");
    TINYAMP_CHECK(o.weight_decay >= 0, value, "Invalid weight_decay value: ", o.weight_decay, " (it must be >= 0)");
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
        const double lr = group.lr;
        // PyTorch's single-tensor SGD, operation for operation, each add with alpha fused as
        // PyTorch's CPU kernels fuse it (detail::add_scaled): d = grad.add(p, alpha=wd) (skipped
        // for wd == 0); buf.mul_(momentum).add_(d, alpha=1 - dampening); d.add(buf, alpha=momentum)
        // for nesterov; p.add_(d, alpha=-lr).
        const auto decayed = [&](auto g, auto w) { return o.weight_decay != 0 ? detail::add_scaled(g, decltype(g)(o.weight_decay), w) : g; };
        if (o.momentum == 0) {
            detail::update_elements(p, p.grad(), Tensor(), Tensor(), [&](auto& w, auto g, auto&, auto&) {
                using T = std::remove_reference_t<decltype(w)>;
                w = detail::add_scaled(w, T(-lr), decayed(g, w));
            });
            return;
        }
        auto& state = state_at(index);
        const bool first = !state.count("momentum_buffer");
        if (first) state["momentum_buffer"] = zeros_like(p);
        detail::update_elements(p, p.grad(), state["momentum_buffer"], Tensor(), [&](auto& w, auto g, auto& buf, auto&) {
            using T = std::remove_reference_t<decltype(w)>;
            const T d = decayed(g, w);
            buf = first ? d : detail::add_scaled(buf * T(o.momentum), T(1 - o.dampening), d);
            w = detail::add_scaled(w, T(-lr), o.nesterov ? detail::add_scaled(d, T(o.momentum), buf) : buf);
        });
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
