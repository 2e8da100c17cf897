// Adam and AdamW against their update rules, computed here in double, step by step.
#include <doctest/doctest.h>

#include <cmath>
#include <memory>

#include <tinyamp/tinyamp.h>

#include "tests/support/expect_error.h"

using namespace tinyamp;

namespace {

// PyTorch's Adam (decoupled=false) or AdamW (decoupled=true) on one scalar, in double.
double reference(double p, const std::vector<double>& grads, double lr, double wd, bool decoupled, double b1 = 0.9, double b2 = 0.999,
                 double eps = 1e-8)
{
    double m = 0, v = 0;
    for (std::size_t i = 0; i < grads.size(); ++i) {
        const double t = double(i + 1);
        double g = grads[i];
        if (decoupled)
            p *= 1 - lr * wd;
        else
            g += wd * p;
        m = b1 * m + (1 - b1) * g;
        v = b2 * v + (1 - b2) * g * g;
        p -= lr / (1 - std::pow(b1, t)) * m / (std::sqrt(v) / std::sqrt(1 - std::pow(b2, t)) + eps);
    }
    return p;
}

template <class Opt, class Options>
double run(const std::vector<double>& grads, Options options)
{
    const Tensor p = tensor({1.0}, f64).requires_grad_();
    Opt opt({p}, options);
    for (double g : grads) {
        p.set_grad(tensor({g}, f64));
        opt.step();
    }
    return p.item();
}

}  // namespace

TEST_CASE("Adam follows PyTorch's update with bias correction, with and without L2 weight decay")
{
    const std::vector<double> grads{0.5, -0.25, 1.0};
    CHECK(run<optim::Adam>(grads, optim::AdamOptions{.lr = 0.1}) == doctest::Approx(reference(1.0, grads, 0.1, 0, false)).epsilon(1e-12));
    CHECK(run<optim::Adam>(grads, optim::AdamOptions{.lr = 0.1, .weight_decay = 0.1}) ==
          doctest::Approx(reference(1.0, grads, 0.1, 0.1, false)).epsilon(1e-12));
    // The first step moves by lr whatever the gradient's size: m/sqrt(v) = sign(g) after correction.
    CHECK(run<optim::Adam>({1e-2}, optim::AdamOptions{.lr = 0.1}) == doctest::Approx(0.9).epsilon(1e-6));
    CHECK(run<optim::Adam>({-300.0}, optim::AdamOptions{.lr = 0.1}) == doctest::Approx(1.1).epsilon(1e-6));
}

TEST_CASE("Adam's first moment is PyTorch's lerp_, one fused multiply-add: m + w (g - m) rounded once")
{
    // Step 1 (g = 1) leaves m = w = 1 - beta1 in f32; step 2 (g = 8/7) gives m + w (g - m), with
    // g - m rounded first, as PyTorch's vectorized lerp computes it. The values are chosen so that
    // rounding w (g - m) first would land one ulp away.
    const float w = float(1 - 0.9), m = w, g = 8.0f / 7.0f, diff = g - m;
    const float once = float(double(m) + double(w) * double(diff));  // exact in f64, then rounded once
    const volatile float product = w * diff;                         // volatile: no compiler may fuse this one
    REQUIRE(once != m + product);                                    // the case tells the two apart
    const Tensor p = zeros({1}, f32).requires_grad_();
    optim::Adam opt({p});
    for (float grad : {1.0f, g}) {
        p.set_grad(tensor({double(grad)}, f32));
        opt.step();
    }
    CHECK(opt.state(p).at("exp_avg").item() == double(once));
}

TEST_CASE("AdamW decays the weights apart from the gradient (decoupled weight decay)")
{
    const std::vector<double> grads{0.5, -0.25, 1.0};
    const double adamw = run<optim::AdamW>(grads, optim::AdamWOptions{.lr = 0.1, .weight_decay = 0.1});
    CHECK(adamw == doctest::Approx(reference(1.0, grads, 0.1, 0.1, true)).epsilon(1e-12));
    CHECK(adamw != doctest::Approx(reference(1.0, grads, 0.1, 0.1, false)).epsilon(1e-6));
    CHECK(optim::AdamW({tensor({1.0}, f64).requires_grad_()}).type_name() == "AdamW");
}

TEST_CASE("Adam keeps f32 state per parameter, created at the first step, and skips parameters without a gradient")
{
    const Tensor a = ones({3}, f32).requires_grad_(), b = ones({2}, f32).requires_grad_();
    optim::Adam opt({a, b}, {.lr = 0.01});
    a.set_grad(full({3}, 0.5, f32));
    opt.step();
    CHECK(opt.state(a).at("step").item() == 1);
    CHECK(opt.state(a).at("step").dim() == 0);
    CHECK(opt.state(a).at("exp_avg").dtype() == f32);
    CHECK(opt.state(a).at("exp_avg_sq").shape() == Shape{3});
    CHECK(opt.state(b).empty());
    CHECK(b.to_vector() == std::vector<double>{1, 1});
    CHECK(a.at({0}) == doctest::Approx(0.99).epsilon(1e-5));
}

TEST_CASE("Adam minimizes a quadratic")
{
    const Tensor x = tensor({3.0, -2.0}, f32).requires_grad_();
    optim::Adam opt({x}, {.lr = 0.1});
    for (int i = 0; i < 300; ++i) {
        opt.zero_grad();
        sum(mul(sub(x, tensor({1.0, 0.5}, f32)), sub(x, tensor({1.0, 0.5}, f32)))).backward();
        opt.step();
    }
    CHECK(x.at({0}) == doctest::Approx(1.0).epsilon(1e-2));
    CHECK(x.at({1}) == doctest::Approx(0.5).epsilon(1e-2));
}

TEST_CASE("Adam refuses bad options with PyTorch's messages")
{
    const Tensor p = ones({2}, f32).requires_grad_();
    CHECK(test::error_message([&] { optim::Adam({p}, {.lr = -1}); }, ErrorKind::value).find("Invalid learning rate: -1") != std::string::npos);
    CHECK(test::error_message([&] { optim::Adam({p}, {.beta1 = 1.5}); }, ErrorKind::value).find("Invalid beta parameter at index 0: 1.5") !=
          std::string::npos);
    CHECK(test::error_message([&] { optim::Adam({p}, {.beta2 = -0.1}); }, ErrorKind::value).find("Invalid beta parameter at index 1") !=
          std::string::npos);
    CHECK(test::error_message([&] { optim::Adam({p}, {.eps = -1}); }, ErrorKind::value).find("Invalid epsilon value") != std::string::npos);
}

TEST_CASE("why master weights stay f32: an f16 parameter loses updates smaller than half its ulp")
{
    // p = 1 and an update of lr * g = 1e-4 * 1: below half of f16's ulp at 1 (2^-11 = 0.00049).
    const Tensor h = ones({1}, f16).requires_grad_(), w = ones({1}, f32).requires_grad_();
    optim::SGD on_f16({h}, {.lr = 1e-4}), on_f32({w}, {.lr = 1e-4});
    for (int i = 0; i < 10; ++i) {
        h.set_grad(ones({1}, f16));
        w.set_grad(ones({1}, f32));
        on_f16.step();
        on_f32.step();
    }
    CHECK(h.item() == 1.0);  // ten updates, all rounded away
    CHECK(w.item() == doctest::Approx(1.0 - 1e-3).epsilon(1e-6));
    CHECK(h.dtype() == f16);

    // Adam on f16 keeps f16 state, like PyTorch; the update is computed in f32 and rounded once.
    const Tensor a = full({1}, 2.0, f16).requires_grad_();
    optim::Adam adam({a}, {.lr = 0.25});
    a.set_grad(full({1}, 3.0, f16));
    adam.step();
    CHECK(a.item() == 1.75);
    CHECK(adam.state(a).at("exp_avg").dtype() == f16);
}

TEST_CASE("Adam and AdamW: each group steps with its own lr, element by element like the scalar reference")
{
    const std::vector<double> start{1.0, -2.0, 0.5};
    const std::vector<std::vector<double>> grads{{0.5, -0.25, 1.0}, {-3.0, 0.001, 2.0}, {0.0, 1.0, -1.0}};  // per step, per element
    for (bool decoupled : {false, true}) {
        INFO("decoupled " << decoupled);
        const Tensor a = tensor(start, {3}, f64).requires_grad_(), b = tensor(start, {3}, f64).requires_grad_();
        const std::vector<optim::ParamGroup> groups{{{a}, 0.1}, {{b}, 0.02}};
        std::unique_ptr<optim::Optimizer> opt;
        if (decoupled)
            opt = std::make_unique<optim::AdamW>(groups, optim::AdamWOptions{.weight_decay = 0.3});
        else
            opt = std::make_unique<optim::Adam>(groups, optim::AdamOptions{.weight_decay = 0.3});
        for (const auto& g : grads) {
            a.set_grad(tensor(g, {3}, f64));
            b.set_grad(tensor(g, {3}, f64));
            opt->step();
        }
        for (std::size_t i = 0; i < start.size(); ++i) {
            std::vector<double> gi;
            for (const auto& g : grads) gi.push_back(g[i]);
            CHECK(a.at({std::int64_t(i)}) == doctest::Approx(reference(start[i], gi, 0.1, 0.3, decoupled)).epsilon(1e-12));
            CHECK(b.at({std::int64_t(i)}) == doctest::Approx(reference(start[i], gi, 0.02, 0.3, decoupled)).epsilon(1e-12));
        }
    }
}

TEST_CASE("Adam updates a non-contiguous parameter like a contiguous one")
{
    // A transposed leaf: the update runs on a contiguous copy that is written back.
    const Tensor base = tensor({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, {2, 3}, f32);
    const Tensor t = base.t().requires_grad_(), c = base.t().contiguous().requires_grad_();
    REQUIRE_FALSE(t.is_contiguous());
    optim::Adam opt_t({t}, {.lr = 0.1}), opt_c({c}, {.lr = 0.1});
    for (int i = 0; i < 3; ++i) {
        const Tensor g = tensor({0.5, -1.0, 2.0, 0.25, -0.5, 1.5}, {3, 2}, f32);
        t.set_grad(g);
        c.set_grad(g);
        opt_t.step();
        opt_c.step();
    }
    CHECK(t.to_vector() == c.to_vector());
    CHECK(t.to_vector() != std::vector<double>{1, 4, 2, 5, 3, 6});
    CHECK(base.at({0, 1}) == t.at({1, 0}));  // written into the tensor's own storage
}
