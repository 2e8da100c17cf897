#include "lessons/support/models.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace tinyamp::lesson {

Mlp::Mlp(const std::vector<std::int64_t>& sizes, Generator& gen, const MlpInit& init)
{
    if (sizes.size() < 2) throw std::invalid_argument("Mlp: needs at least an input and an output size");
    const std::size_t layer_count = sizes.size() - 1;
    if ((!init.weight_std.empty() && init.weight_std.size() != layer_count) || (!init.bias_std.empty() && init.bias_std.size() != layer_count))
        throw std::invalid_argument("Mlp: weight_std and bias_std need one value per layer (" + std::to_string(layer_count) + ")");
    auto finish = [&](Tensor t, const std::string& name) {
        t = t.to(init.dtype);
        if (init.requires_grad) t.requires_grad_();
        if (init.named) t.set_name(name);
        return t;
    };
    for (std::size_t i = 0; i < layer_count; ++i) {
        const std::int64_t in = sizes[i], out = sizes[i + 1];
        const double w_std = init.weight_std.empty() ? 1.0 / std::sqrt(double(in)) : init.weight_std[i];
        const double b_std = init.bias_std.empty() ? 0.0 : init.bias_std[i];
        const std::string number = std::to_string(i + 1);
        params_.push_back(finish(mul(randn({out, in}, f32, gen), w_std), "w" + number));
        params_.push_back(finish(b_std == 0.0 ? zeros({out}) : mul(randn({out}, f32, gen), b_std), "b" + number));
    }
}

Mlp::Mlp(std::vector<Tensor> params) : params_(std::move(params))
{
    if (params_.empty() || params_.size() % 2 != 0) throw std::invalid_argument("Mlp: needs a weight and a bias per layer");
}

Tensor Mlp::operator()(const Tensor& x) const
{
    Tensor h = x;
    for (std::size_t i = 0; i < params_.size(); i += 2) {
        h = linear(h, params_[i], params_[i + 1]);
        if (i + 2 < params_.size()) h = relu(h);
    }
    return h;
}

const Tensor& Mlp::weight(std::size_t layer) const
{
    if (layer < 1 || layer > layers()) throw std::out_of_range("Mlp::weight: no layer " + std::to_string(layer));
    return params_[2 * (layer - 1)];
}

const Tensor& Mlp::bias(std::size_t layer) const
{
    if (layer < 1 || layer > layers()) throw std::out_of_range("Mlp::bias: no layer " + std::to_string(layer));
    return params_[2 * (layer - 1) + 1];
}

Mlp Mlp::copy_to(Device device) const
{
    std::vector<Tensor> copies;
    for (const Tensor& p : params_) copies.push_back(p.detach().clone().to(device).requires_grad_());
    return Mlp(std::move(copies));
}

std::vector<double> Mlp::snapshot() const
{
    std::vector<double> all;
    for (const Tensor& p : params_) {
        const std::vector<double> v = p.to_vector();
        all.insert(all.end(), v.begin(), v.end());
    }
    return all;
}

namespace {

template <class Model>
double train_one_epoch_of(Model& model, optim::Optimizer& optimizer, data::DataLoader& loader)
{
    double total = 0;
    int steps = 0;
    for (const data::Batch& batch : loader) {
        optimizer.zero_grad();
        const Tensor loss = cross_entropy(model(batch.features), batch.labels);
        loss.backward();
        optimizer.step();
        total += loss.item();
        ++steps;
    }
    return total / steps;
}

}  // namespace

double train_one_epoch(const Mlp& model, optim::Optimizer& optimizer, data::DataLoader& loader)
{
    return train_one_epoch_of(model, optimizer, loader);
}

double train_one_epoch(nn::Module& model, optim::Optimizer& optimizer, data::DataLoader& loader)
{
    return train_one_epoch_of(model, optimizer, loader);
}

}  // namespace tinyamp::lesson
