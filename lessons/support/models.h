#pragma once
// The small models the lessons share. An Mlp keeps its weights as plain leaf tensors (w1, b1, w2,
// ...), not nn::Module layers: the lessons look at every tensor (its dtype, its .grad, its cast),
// pass them to gradcheck, and copy them to another device.
//
//   Generator gen(0);
//   const lesson::Mlp net({30, 16, 1}, gen);          // Linear(30, 16) -> ReLU -> Linear(16, 1)
//   const Tensor logits = net(x);
#include <cstdint>
#include <vector>

#include <tinyamp/tinyamp.h>

namespace tinyamp::lesson {

/// How an Mlp draws its weights. Layer i's weight is randn({out, in}) * weight_std[i], its bias
/// randn({out}) * bias_std[i], or zeros (drawing nothing) where bias_std[i] is 0. An empty
/// weight_std means 1 / sqrt(in) for every layer (PyTorch's default scale), an empty bias_std zeros.
struct MlpInit {
    std::vector<double> weight_std;
    std::vector<double> bias_std;
    DType dtype = f32;           ///< drawn in f32, then converted (f64 for gradcheck)
    bool requires_grad = true;   ///< false: plain tensors, to be copied somewhere first (Mlp::copy_to)
    bool named = true;           ///< names the tensors w1, b1, w2, b2, ...
};

/// Linear -> ReLU -> ... -> Linear, with sizes {in, hidden..., out}.
class Mlp {
public:
    Mlp(const std::vector<std::int64_t>& sizes, Generator& gen, const MlpInit& init = {});
    /// An Mlp of the given tensors: w1, b1, w2, b2, ... in order.
    explicit Mlp(std::vector<Tensor> params);

    Tensor operator()(const Tensor& x) const;

    const std::vector<Tensor>& params() const { return params_; }  ///< w1, b1, w2, b2, ...
    std::size_t layers() const { return params_.size() / 2; }
    const Tensor& weight(std::size_t layer) const;  ///< layer 1 is the first: weight(1) is w1
    const Tensor& bias(std::size_t layer) const;    ///< bias(1) is b1

    /// A copy of its own on `device`: new leaves that require grad (new master weights), so a step
    /// on one copy leaves the others alone.
    Mlp copy_to(Device device) const;
    /// Every parameter's values, one after the other: to see whether a step changed any of them.
    std::vector<double> snapshot() const;

private:
    std::vector<Tensor> params_;
};

/// One epoch of plain training: for each batch, zero_grad, cross_entropy(model(features), labels),
/// backward, step. Returns the mean of the batches' losses.
double train_one_epoch(const Mlp& model, optim::Optimizer& optimizer, data::DataLoader& loader);
/// The same for a module (an nn::Sequential, say).
double train_one_epoch(nn::Module& model, optim::Optimizer& optimizer, data::DataLoader& loader);

}  // namespace tinyamp::lesson
