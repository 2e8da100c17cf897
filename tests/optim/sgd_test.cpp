// SGD against its update rule, worked by hand.
#include <doctest/doctest.h>

#include <cmath>

#include <tinyamp/tinyamp.h>

#include "tests/support/expect_error.h"

using namespace tinyamp;

namespace {

// One step with gradient g on p, for the given options.
std::vector<double> steps(optim::SGDOptions options, const std::vector<double>& grads)
{
    const Tensor p = tensor({1.0}, f64).requires_grad_();
    optim::SGD opt({p}, options);
    for (double g : grads) {
        p.set_grad(tensor({g}, f64));
        opt.step();
    }
    return p.to_vector();
}

}  // namespace

TEST_CASE("SGD: plain, momentum, dampening, nesterov and weight decay follow PyTorch's formulas")
{
    CHECK(steps({.lr = 0.1}, {2.0})[0] == doctest::Approx(1.0 - 0.2));
    // momentum 0.9: buf = 2, then 0.9*2 + 1 = 2.8; p = 1 - 0.1*2 - 0.1*2.8
    CHECK(steps({.lr = 0.1, .momentum = 0.9}, {2.0, 1.0})[0] == doctest::Approx(1.0 - 0.2 - 0.28));
    // dampening 0.5: buf = 2, then 0.9*2 + 0.5*1 = 2.3
    CHECK(steps({.lr = 0.1, .momentum = 0.9, .dampening = 0.5}, {2.0, 1.0})[0] == doctest::Approx(1.0 - 0.2 - 0.23));
    // nesterov: d = g + 0.9 buf: first 2 + 1.8 = 3.8
    CHECK(steps({.lr = 0.1, .momentum = 0.9, .nesterov = true}, {2.0})[0] == doctest::Approx(1.0 - 0.38));
    // weight decay 0.5: d = 2 + 0.5*1 = 2.5
    CHECK(steps({.lr = 0.1, .weight_decay = 0.5}, {2.0})[0] == doctest::Approx(1.0 - 0.25));
}

TEST_CASE("SGD rounds p - lr * d once in f32 (a fused multiply-add), as PyTorch's AVX2/AVX-512 CPU kernels do")
{
    // p = 1, g = 18/7 in f32, lr = 0.1: the product lr * g is not exact in f32, and rounding it
    // first gives a result one ulp away from the once-rounded one.
    const float g = 18.0f / 7.0f, lr = 0.1f;
    const float once = float(1.0 - double(lr) * double(g));  // exact in f64, then rounded once
    const volatile float product = lr * g;  // volatile: no compiler may fuse this one
    const float twice = 1.0f - product;
    REQUIRE(once != twice);  // the case tells the two apart
    const Tensor p = tensor({1.0}, f32).requires_grad_();
    optim::SGD opt({p}, {.lr = 0.1});
    p.set_grad(tensor({double(g)}, f32));
    opt.step();
    CHECK(p.item() == double(once));
}

TEST_CASE("SGD skips parameters without gradients, zero_grad drops gradients, and bad options are refused")
{
    const Tensor a = ones({2}).requires_grad_(), b = ones({2}).requires_grad_();
    optim::SGD opt({a, b}, {.lr = 0.5});
    a.set_grad(ones({2}));
    opt.step();
    CHECK(a.to_vector() == std::vector<double>{0.5, 0.5});
    CHECK(b.to_vector() == std::vector<double>{1, 1});
    opt.zero_grad();
    CHECK_FALSE(a.grad().defined());
    CHECK_THROWS_AS(optim::SGD({a}, {.lr = 0.1, .nesterov = true}), Error);
    CHECK_THROWS_AS(optim::SGD({ones({2})}, {.lr = 0.1}), Error);  // not a parameter
}

TEST_CASE("SGD keeps a momentum_buffer per parameter and uses each group's lr")
{
    const Tensor a = tensor({1.0, 2.0}, f64).requires_grad_(), b = tensor({1.0}, f64).requires_grad_();
    const Tensor c = tensor({1.0}, f64).requires_grad_();
    optim::SGD opt(std::vector<optim::ParamGroup>{{{a}, 0.1}, {{b}, 0.5}, {.params = {c}}}, {.lr = 0.25, .momentum = 0.9});
    CHECK(opt.param_groups()[2].lr == 0.25);  // a group without an lr gets the optimizer's
    CHECK_FALSE(opt.momentum_buffer(a).defined());
    for (int i = 0; i < 2; ++i) {
        a.set_grad(tensor({1.0, -1.0}, f64));
        b.set_grad(tensor({1.0}, f64));
        opt.step();
    }
    // buf = 1, then 0.9 + 1 = 1.9: p moves by lr * 2.9 in all, each step p + (-lr) buf rounded once.
    CHECK(a.to_vector() == std::vector<double>{std::fma(-0.1, 1.9, 1.0 - 0.1 * 1), std::fma(-0.1, -1.9, 2.0 + 0.1 * 1)});
    CHECK(b.item() == doctest::Approx(1.0 - 0.5 * 2.9));
    CHECK(opt.momentum_buffer(a).to_vector() == std::vector<double>{1.9, -1.9});
    CHECK(opt.state(b).at("momentum_buffer").item() == doctest::Approx(1.9));
    CHECK(opt.state_dict().param_groups[1].options.at("lr") == 0.5);
}

TEST_CASE("clip_grad_norm_ scales all gradients together to the max norm and returns the norm before")
{
    const Tensor a = ones({2}).requires_grad_(), b = ones({2}).requires_grad_();
    a.set_grad(tensor({3.0, 0.0}));
    b.set_grad(tensor({0.0, 4.0}));
    CHECK(optim::clip_grad_norm_({a, b}, 1.0) == doctest::Approx(5.0));
    CHECK(a.grad().at({0}) == doctest::Approx(0.6).epsilon(1e-5));
    CHECK(b.grad().at({1}) == doctest::Approx(0.8).epsilon(1e-5));
    CHECK(optim::clip_grad_norm_({a, b}, 10.0) == doctest::Approx(1.0).epsilon(1e-5));  // already below: unchanged
    CHECK(a.grad().at({0}) == doctest::Approx(0.6).epsilon(1e-5));
}

TEST_CASE("clip_grad_norm_ with a non-finite norm: an error if asked, else PyTorch's NaN and zeros")
{
    const Tensor a = ones({2}).requires_grad_();
    a.set_grad(tensor({std::nan(""), 1.0}));
    const std::string message =
        test::error_message([&] { optim::clip_grad_norm_({a}, 1.0, /*error_if_nonfinite=*/true); }, ErrorKind::value);
    CHECK(message.find("the total norm of the gradients is") != std::string::npos);
    CHECK(message.find("nan") != std::string::npos);
    CHECK(a.grad().at({1}) == 1.0);  // the error left the gradients alone
    CHECK(std::isnan(optim::clip_grad_norm_({a}, 1.0)));
    CHECK(std::isnan(a.grad().at({1})));  // the factor is NaN: every gradient becomes NaN

    a.set_grad(tensor({INFINITY, 1.0}));
    CHECK(std::isinf(optim::clip_grad_norm_({a}, 1.0)));
    CHECK(std::isnan(a.grad().at({0})));  // inf * 0
    CHECK(a.grad().at({1}) == 0.0);
}

TEST_CASE("the optimizers' defaults are PyTorch 2.x's")
{
    // torch.optim.SGD(params): lr=1e-3 (since 2.2), momentum=0, dampening=0, weight_decay=0, nesterov=False.
    const optim::SGDOptions sgd;
    CHECK(sgd.lr == 1e-3);
    CHECK(sgd.momentum == 0.0);
    CHECK(sgd.dampening == 0.0);
    CHECK(sgd.weight_decay == 0.0);
    CHECK_FALSE(sgd.nesterov);
    // torch.optim.Adam: lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0; AdamW: weight_decay=1e-2.
    const optim::AdamOptions adam;
    CHECK(adam.lr == 1e-3);
    CHECK(adam.beta1 == 0.9);
    CHECK(adam.beta2 == 0.999);
    CHECK(adam.eps == 1e-8);
    CHECK(adam.weight_decay == 0.0);
    const optim::AdamWOptions adamw;
    CHECK(adamw.lr == 1e-3);
    CHECK(adamw.weight_decay == 1e-2);
    // An SGD made without options steps with lr 1e-3.
    const Tensor p = tensor({1.0}, f64).requires_grad_();
    optim::SGD opt({p}, {});
    p.set_grad(tensor({2.0}, f64));
    opt.step();
    CHECK(p.to_vector()[0] == doctest::Approx(1.0 - 2e-3));
}
