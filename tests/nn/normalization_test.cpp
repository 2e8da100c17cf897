// LayerNorm, BatchNorm1d and BatchNorm2d: the forward equal to the functional op with the same
// parameters and statistics; running statistics and num_batches_tracked as PyTorch updates them;
// eval using the running statistics; input rank checks; PyTorch's state_dict names; f64 gradients
// through the module by gradcheck.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include <tinyamp/tinyamp.h>

#include "tests/support/expect_error.h"
#include "tests/support/module_gradcheck.h"
#include "tests/support/tolerance.h"

using namespace tinyamp;
using tinyamp::test::check_close;
using tinyamp::test::check_module_gradients;
using tinyamp::test::error_message;

namespace {

bool same_values(const Tensor& a, const Tensor& b)
{
    return a.dtype() == b.dtype() && a.shape() == b.shape() && a.to_vector() == b.to_vector();
}

std::vector<std::string> names_of(const nn::NamedTensors& named)
{
    std::vector<std::string> out;
    for (const auto& entry : named) out.push_back(entry.first);
    return out;
}

// Gives a module's weight and bias random values, so tests do not pass by the ones/zeros init.
template <class M>
void randomize_affine(M& m, std::uint64_t seed)
{
    Generator gen(seed);
    NoGradGuard no_grad;
    m.weight.copy_(randn(m.weight.shape(), f64, gen));
    m.bias.copy_(randn(m.bias.shape(), f64, gen));
}

}  // namespace

// ---------------------------------------------------------------- LayerNorm

TEST_CASE("nn::LayerNorm matches layer_norm, with weight ones and bias zeros at first")
{
    nn::LayerNorm ln(Shape{3, 4});
    CHECK(ln.normalized_shape == Shape{3, 4});
    CHECK(ln.eps == 1e-5);
    CHECK(ln.weight.to_vector() == std::vector<double>(12, 1.0));
    CHECK(ln.bias.to_vector() == std::vector<double>(12, 0.0));
    CHECK(names_of(ln.state_dict()) == std::vector<std::string>{"weight", "bias"});
    randomize_affine(ln, 1);
    Generator gen(2);
    const Tensor x = randn({2, 3, 4}, f32, gen);
    CHECK(same_values(ln(x), layer_norm(x, {3, 4}, ln.weight, ln.bias, 1e-5)));

    nn::LayerNorm last(4, 1e-3);  // LayerNorm(4): the last dim
    randomize_affine(last, 3);
    CHECK(last.normalized_shape == Shape{4});
    CHECK(same_values(last(x), layer_norm(x, {4}, last.weight, last.bias, 1e-3)));

    nn::LayerNorm plain(4, 1e-5, false);
    CHECK(plain.parameters().empty());
    CHECK_FALSE(plain.weight.defined());
    CHECK(same_values(plain(x), layer_norm(x, {4})));
    CHECK(error_message([&] { last(ones({2, 3})); }, ErrorKind::shape).find("normalized_shape [4]") != std::string::npos);
}

TEST_CASE("nn::LayerNorm f64 gradients through the module by gradcheck")
{
    nn::LayerNorm ln(Shape{3, 4});
    ln.to(f64);
    randomize_affine(ln, 4);
    Generator gen(5);
    check_module_gradients(ln, randn({2, 3, 4}, f64, gen));
}

// ---------------------------------------------------------------- BatchNorm

TEST_CASE("nn::BatchNorm state_dict has PyTorch's names, dtypes and initial values")
{
    nn::BatchNorm2d bn(3);
    CHECK(names_of(bn.state_dict()) == std::vector<std::string>{"weight", "bias", "running_mean", "running_var", "num_batches_tracked"});
    CHECK(names_of(bn.named_parameters()) == std::vector<std::string>{"weight", "bias"});
    CHECK(bn.weight.to_vector() == std::vector<double>{1, 1, 1});
    CHECK(bn.bias.to_vector() == std::vector<double>{0, 0, 0});
    CHECK(bn.running_mean.to_vector() == std::vector<double>{0, 0, 0});
    CHECK(bn.running_var.to_vector() == std::vector<double>{1, 1, 1});
    CHECK(bn.running_mean.dtype() == f32);
    CHECK(bn.running_var.dtype() == f32);
    CHECK(bn.num_batches_tracked.dtype() == i64);
    CHECK(bn.num_batches_tracked.shape() == Shape{});
    CHECK(bn.num_batches_tracked.item() == 0);
    CHECK_FALSE(bn.running_mean.requires_grad());

    nn::BatchNorm1d no_affine(3, 1e-5, 0.1, false);
    CHECK(names_of(no_affine.state_dict()) == std::vector<std::string>{"running_mean", "running_var", "num_batches_tracked"});
    nn::BatchNorm1d no_stats(3, 1e-5, 0.1, true, false);
    CHECK(names_of(no_stats.state_dict()) == std::vector<std::string>{"weight", "bias"});
    CHECK_FALSE(no_stats.running_mean.defined());
}

TEST_CASE("nn::BatchNorm1d training step: batch statistics, running statistics by PyTorch's formula, batches counted")
{
    // Channel 0: 1, 2, 6 (mean 3, unbiased variance 7). Channel 1: 0, 4, 8 (mean 4, unbiased variance 16).
    const Tensor x = tensor({1.0, 0.0, 2.0, 4.0, 6.0, 8.0}, {3, 2}, f32);
    nn::BatchNorm1d bn(2);
    randomize_affine(bn, 6);
    const Tensor y = bn(x);
    // The op on fresh statistics gives the same output and the same updated statistics.
    const Tensor mean = zeros({2}), var = ones({2});
    CHECK(same_values(y, batch_norm(x, mean, var, bn.weight, bn.bias, true, 0.1, 1e-5)));
    CHECK(same_values(bn.running_mean, mean));
    CHECK(same_values(bn.running_var, var));
    // running = 0.9 * running + 0.1 * batch statistic, with the unbiased variance.
    check_close(bn.running_mean, tensor({0.3, 0.4}, f64), f32);
    check_close(bn.running_var, tensor({1.6, 2.5}, f64), f32);
    CHECK(bn.num_batches_tracked.item() == 1);

    bn(x);
    check_close(bn.running_mean, tensor({0.9 * 0.3 + 0.3, 0.9 * 0.4 + 0.4}, f64), f32);
    check_close(bn.running_var, tensor({0.9 * 1.6 + 0.7, 0.9 * 2.5 + 1.6}, f64), f32);
    CHECK(bn.num_batches_tracked.item() == 2);

    // Another momentum moves them by that much.
    nn::BatchNorm1d fast(2, 1e-5, 0.5);
    fast(x);
    check_close(fast.running_mean, tensor({1.5, 2.0}, f64), f32);
    check_close(fast.running_var, tensor({4.0, 8.5}, f64), f32);
}

TEST_CASE("nn::BatchNorm eval uses the running statistics and leaves them and the count alone")
{
    Generator gen(7);
    nn::BatchNorm2d bn(3);
    randomize_affine(bn, 8);
    for (int step = 0; step < 3; ++step) bn(add(mul(randn({4, 3, 2, 2}, f32, gen), 2.0), 1.0));
    CHECK(bn.num_batches_tracked.item() == 3);
    bn.eval();
    const std::vector<double> mean = bn.running_mean.to_vector(), var = bn.running_var.to_vector();
    const Tensor x = randn({2, 3, 2, 2}, f32, gen);
    const Tensor y = bn(x);
    CHECK(same_values(y, batch_norm(x, bn.running_mean, bn.running_var, bn.weight, bn.bias, false)));
    CHECK_FALSE(same_values(y, batch_norm(x, Tensor(), Tensor(), bn.weight, bn.bias, true)));  // not the batch's
    CHECK(bn.running_mean.to_vector() == mean);
    CHECK(bn.running_var.to_vector() == var);
    CHECK(bn.num_batches_tracked.item() == 3);

    // Without running statistics, batch statistics in both modes (and nothing to count).
    nn::BatchNorm2d no_stats(3, 1e-5, 0.1, false, false);
    const Tensor train_out = no_stats(x);
    no_stats.eval();
    CHECK(same_values(no_stats(x), train_out));
    CHECK(same_values(train_out, batch_norm(x, Tensor(), Tensor(), Tensor(), Tensor(), true)));
}

TEST_CASE("nn::BatchNorm1d takes 2-D and 3-D input, BatchNorm2d 4-D, other ranks are refused as PyTorch does")
{
    Generator gen(9);
    nn::BatchNorm1d bn1(3);
    nn::BatchNorm2d bn2(3);
    const Tensor x3 = randn({4, 3, 5}, f32, gen);
    CHECK(bn1(randn({4, 3}, f32, gen)).shape() == Shape{4, 3});
    CHECK(same_values(bn1(x3), batch_norm(x3, Tensor(), Tensor(), Tensor(), Tensor(), true)));  // weight 1, bias 0
    CHECK(bn2(randn({2, 3, 4, 4}, f32, gen)).shape() == Shape{2, 3, 4, 4});

    CHECK(error_message([&] { bn2(ones({4, 3})); }, ErrorKind::shape).find("expected 4D input (got 2D input)") != std::string::npos);
    CHECK(error_message([&] { bn2(x3); }, ErrorKind::shape).find("expected 4D input (got 3D input)") != std::string::npos);
    CHECK(error_message([&] { bn1(ones({2, 3, 4, 4})); }, ErrorKind::shape).find("expected 2D or 3D input (got 4D input)") !=
          std::string::npos);
    CHECK(error_message([&] { bn1(ones({3})); }, ErrorKind::shape).find("expected 2D or 3D input (got 1D input)") != std::string::npos);
    CHECK(error_message([&] { bn1(ones({4, 5})); }, ErrorKind::shape).find("shape [3]") != std::string::npos);  // 5 channels, 3 features
    // A refused input is not counted.
    CHECK(bn2.num_batches_tracked.item() == 1);
    CHECK(bn1.num_batches_tracked.item() == 2);
}

TEST_CASE("nn::BatchNorm f64 gradients through the module by gradcheck, training and eval")
{
    Generator gen(10);
    for (bool training : {true, false}) {
        INFO((training ? "training" : "eval"));
        nn::BatchNorm2d bn2(2);
        bn2.to(f64);
        randomize_affine(bn2, 11);
        bn2.running_mean.copy_(randn({2}, f64, gen));
        bn2.running_var.copy_(add(rand({2}, f64, gen), 0.5));
        bn2.train(training);
        check_module_gradients(bn2, randn({3, 2, 2, 3}, f64, gen));

        nn::BatchNorm1d bn1(3);
        bn1.to(f64);
        randomize_affine(bn1, 12);
        bn1.train(training);
        check_module_gradients(bn1, randn({4, 3, 2}, f64, gen));
    }
}

TEST_CASE("nn::BatchNorm statistics travel with state_dict, count included, inside a Sequential")
{
    Generator gen(13);
    auto a = std::make_shared<nn::Sequential>();
    a->emplace_back<nn::Linear>(4, 3);
    a->emplace_back<nn::BatchNorm1d>(3);
    (*a)(randn({5, 4}, f32, gen));
    (*a)(randn({5, 4}, f32, gen));
    auto b = std::make_shared<nn::Sequential>();
    b->emplace_back<nn::Linear>(4, 3);
    const auto bn = b->emplace_back<nn::BatchNorm1d>(3);
    b->load_state_dict(a->state_dict());
    CHECK(bn->num_batches_tracked.item() == 2);
    CHECK(bn->num_batches_tracked.name() == "1.num_batches_tracked");
    CHECK(same_values(bn->running_var, a->state_dict()[5].second));
    a->eval();
    b->eval();
    const Tensor x = randn({2, 4}, f32, gen);
    CHECK(same_values((*a)(x), (*b)(x)));
}
