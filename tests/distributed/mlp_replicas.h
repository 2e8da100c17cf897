#pragma once
// For the tests under mpirun: a small MLP (its parameters, or as a module), the same on every
// rank; whether every rank holds the same bits as rank 0; how far two runs' tensors are apart; a
// model with a layer its forward never uses; the message of the Error a call throws.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <tinyamp/tinyamp.h>

#include "tinyamp/distributed/collectives.h"

namespace tinyamp::test {

/// The four tensors of an 8-16-3 MLP (weights from `seed`, biases 0), leaves that require grad.
inline std::vector<Tensor> small_mlp_parameters(std::uint64_t seed)
{
    Generator generator(seed);
    std::vector<Tensor> p = {randn({16, 8}, f32, generator) * 0.3, zeros({16}), randn({3, 16}, f32, generator) * 0.3, zeros({3})};
    for (Tensor& t : p) t = t.detach().requires_grad_();
    return p;
}

/// An 8-16-3 MLP module (Linear, ReLU, Linear) whose weights come from `seed`.
inline std::shared_ptr<nn::Module> small_mlp(std::uint64_t seed)
{
    manual_seed(seed);
    return std::make_shared<nn::Sequential>(std::vector<std::shared_ptr<nn::Module>>{
        std::make_shared<nn::Linear>(8, 16), std::make_shared<nn::ReLU>(), std::make_shared<nn::Linear>(16, 3)});
}

/// The largest element-wise distance between two lists of tensors of the same shapes.
inline double max_difference(const std::vector<Tensor>& a, const std::vector<Tensor>& b)
{
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const std::vector<double> x = a[i].to_vector(), y = b[i].to_vector();
        for (std::size_t j = 0; j < x.size(); ++j) worst = std::max(worst, std::fabs(x[j] - y[j]));
    }
    return worst;
}

/// A model with a layer its forward never uses ("used" is a Linear(8, 3), "unused" another).
class HalfUsed : public nn::Module {
public:
    HalfUsed()
    {
        used_ = register_module("used", std::make_shared<nn::Linear>(8, 3));
        register_module("unused", std::make_shared<nn::Linear>(8, 3));
    }
    Tensor forward(const Tensor& x) override { return (*used_)(x); }
    std::string type_name() const override { return "HalfUsed"; }

private:
    std::shared_ptr<nn::Linear> used_;
};

/// The Error a call throws (its what()), or "" (and a failed check) when it throws none.
template <class Fn>
std::string error_of(Fn&& fn)
{
    try {
        fn();
    } catch (const Error& e) {
        return e.what();
    }
    FAIL_CHECK("expected a tinyamp::Error");
    return "";
}

/// Whether every rank holds the same bits as rank 0 (rank 0's values broadcast and compared, then
/// the ranks agree with a MAX), known on every rank.
inline bool replicas_identical(const std::vector<Tensor>& tensors)
{
    bool same = true;
    for (const Tensor& t : tensors) {
        const Tensor rank0 = t.detach().clone();
        distributed::broadcast(rank0, 0);
        same = same && rank0.to_vector() == t.to_vector();
    }
    const Tensor differs = tensor({same ? 0.0 : 1.0});
    distributed::all_reduce(differs, distributed::ReduceOp::MAX);
    return differs.item() == 0.0;
}

}  // namespace tinyamp::test
