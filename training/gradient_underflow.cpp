#include "training/gradient_underflow.h"

namespace tinyamp::train {

std::vector<double> lost_gradient_shares(nn::Module& model, const std::function<Tensor(bool in_mode)>& loss_of, double scale,
                                         std::size_t groups, const std::function<std::size_t(const std::string&)>& group_of)
{
    const nn::NamedTensors params = model.named_parameters();
    model.zero_grad();
    loss_of(false).backward();
    std::vector<std::vector<double>> reference;
    for (const auto& [name, p] : params) reference.push_back(p.grad().to_vector());

    model.zero_grad();
    Tensor loss = loss_of(true);
    if (scale != 1.0) loss = mul(loss, scale);
    loss.backward();
    std::vector<double> nonzero(groups, 0), lost(groups, 0);
    for (std::size_t i = 0; i < params.size(); ++i) {
        const std::size_t g = group_of(params[i].first);
        const std::vector<double> grad = params[i].second.grad().to_vector();
        for (std::size_t k = 0; k < grad.size(); ++k)
            if (reference[i][k] != 0.0) {
                ++nonzero[g];
                lost[g] += (grad[k] == 0.0);
            }
    }
    model.zero_grad();
    std::vector<double> share(groups, 0);
    for (std::size_t g = 0; g < groups; ++g) share[g] = nonzero[g] == 0 ? 0.0 : lost[g] / nonzero[g];
    return share;
}

}  // namespace tinyamp::train
