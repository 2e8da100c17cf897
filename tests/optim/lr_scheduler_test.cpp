// The schedulers: StepLR, CosineAnnealingLR and LambdaLR, step by step against their closed forms
// written out (tests/oracle/lr_schedulers_golden_test.cpp compares them with PyTorch running);
// state round trips and refusals; PyTorch's warning for a scheduler that steps before its optimizer.
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <numbers>
#include <string>
#include <vector>

#include <tinyamp/tinyamp.h>

#include "tests/support/expect_error.h"
#include "tests/support/tolerance.h"

using namespace tinyamp;

namespace {

// |actual - expected| within `ulps` f64 ulps of expected (the tests' one tolerance rule).
bool close(double actual, double expected, double ulps = 2.0)
{
    const test::Tolerance tol = test::tolerance_for(f64, std::abs(expected), ulps);
    return std::abs(actual - expected) <= tol.rtol * std::abs(expected) + tol.atol;
}

// nanoGPT's get_lr(it) / learning_rate, exactly as the header's comment writes it: linear warmup
// for W steps, cosine decay to min_ratio at D, then min_ratio.
double nanogpt_factor(std::int64_t it)
{
    const std::int64_t W = 10, D = 50;
    const double min_ratio = 0.1;
    if (it < W) return double(it + 1) / double(W + 1);
    if (it > D) return min_ratio;
    const double decay = double(it - W) / double(D - W);
    return min_ratio + 0.5 * (1.0 + std::cos(std::numbers::pi * decay)) * (1.0 - min_ratio);
}

// A one-parameter SGD that has stepped once (on a zero gradient), so its schedulers do not warn.
struct OneParameter {
    Tensor w = ones({1}, f32).requires_grad_();
    optim::SGD sgd;
    explicit OneParameter(double lr) : sgd({w}, {.lr = lr})
    {
        w.set_grad(zeros({1}, f32));
        sgd.step();
    }
};

}  // namespace

TEST_CASE("StepLR multiplies each group's lr by gamma every step_size epochs")
{
    const Tensor a = ones({1}, f32).requires_grad_(), b = ones({1}, f32).requires_grad_();
    optim::SGD opt(std::vector<optim::ParamGroup>{{{a}, 0.1}, {{b}, 0.4}}, {.momentum = 0.9});
    optim::StepLR scheduler(opt, 3, 0.5);
    std::vector<double> first, second;
    for (int epoch = 0; epoch < 10; ++epoch) {
        first.push_back(scheduler.get_last_lr()[0]);
        second.push_back(opt.param_groups()[1].lr);
        scheduler.step();
    }
    CHECK(first == std::vector<double>{0.1, 0.1, 0.1, 0.05, 0.05, 0.05, 0.025, 0.025, 0.025, 0.0125});
    CHECK(second == std::vector<double>{0.4, 0.4, 0.4, 0.2, 0.2, 0.2, 0.1, 0.1, 0.1, 0.05});
    CHECK(scheduler.last_epoch() == 10);
}

TEST_CASE("StepLR computes each lr from the base (closed form), so no rounding builds up")
{
    const Tensor a = ones({1}, f32).requires_grad_();
    optim::SGD opt({a}, {.lr = 0.3});
    optim::StepLR scheduler(opt, 1, 0.9);
    double chained = 0.3;
    int differ = 0;
    for (int epoch = 1; epoch <= 30; ++epoch) {
        scheduler.step();
        chained *= 0.9;  // what multiplying epoch by epoch would give
        CHECK(opt.param_groups()[0].lr == 0.3 * std::pow(0.9, double(epoch)));
        CHECK(scheduler.get_last_lr()[0] == opt.param_groups()[0].lr);
        differ += chained != opt.param_groups()[0].lr;
    }
    CHECK(differ > 0);  // 0.3 * 0.9 * 0.9 is 0.24300000000000002, 0.3 * 0.9^2 is 0.243
}

TEST_CASE("StepLR state round trip and refusals")
{
    const Tensor a = ones({1}, f32).requires_grad_();
    optim::SGD opt({a}, {.lr = 1.0});
    optim::StepLR scheduler(opt, 2, 0.1);
    for (int i = 0; i < 5; ++i) scheduler.step();
    const optim::StepLRState saved = scheduler.state_dict();
    CHECK(saved.last_epoch == 5);

    const Tensor b = ones({1}, f32).requires_grad_();
    optim::SGD other({b}, {.lr = 1.0});
    optim::StepLR restored(other, 7, 0.9);
    restored.load_state_dict(saved);
    CHECK(other.param_groups()[0].lr == doctest::Approx(0.01));
    restored.step();
    scheduler.step();
    CHECK(restored.get_last_lr() == scheduler.get_last_lr());

    CHECK(test::error_message([&] { optim::StepLR(opt, 0); }, ErrorKind::value).find("step_size") != std::string::npos);
    optim::StepLRState two_groups = saved;
    two_groups.base_lrs.push_back(0.5);
    CHECK(test::error_message([&] { restored.load_state_dict(two_groups); }, ErrorKind::value).find("2 base learning rates") !=
          std::string::npos);
}

namespace {

// Collects the warnings given while alive.
struct CapturedWarnings {
    std::vector<std::string> messages;
    WarningHandler previous = set_warning_handler([this](const std::string& m) { messages.push_back(m); });
    ~CapturedWarnings() { set_warning_handler(previous); }
};

}  // namespace

TEST_CASE("StepLR warns once, as PyTorch does, when it steps before the optimizer ever did")
{
    const Tensor w = ones({1}, f32).requires_grad_();
    optim::SGD opt({w}, {.lr = 0.1});
    optim::StepLR scheduler(opt, 1, 0.5);
    CapturedWarnings captured;
    scheduler.step();
    scheduler.step();
    REQUIRE(captured.messages.size() == 1);
    CHECK(captured.messages[0].find("Detected call of `lr_scheduler.step()` before `optimizer.step()`") == 0);
    CHECK(opt.step_calls() == 0);
}

TEST_CASE("StepLR does not warn when the optimizer stepped first")
{
    const Tensor w = ones({1}, f32).requires_grad_();
    optim::SGD opt({w}, {.lr = 0.1});
    optim::StepLR scheduler(opt, 1, 0.5);
    CapturedWarnings captured;
    w.set_grad(ones({1}, f32));
    opt.step();
    scheduler.step();
    CHECK(opt.step_calls() == 1);
    CHECK(captured.messages.empty());
}

TEST_CASE("StepLR warns after a GradScaler skipped the first step for an inf gradient")
{
    const Tensor w = ones({1}, f32).requires_grad_();
    optim::SGD opt({w}, {.lr = 0.1});
    optim::StepLR scheduler(opt, 1, 0.5);
    amp::GradScaler scaler("cpu");
    CapturedWarnings captured;
    scaler.scale(sum(mul(w, 1e38))).backward();  // d/dw = 1e38 x 65536: inf in f32
    scaler.step(opt);                             // found inf: optimizer.step() is skipped
    scaler.update();
    scheduler.step();
    CHECK(opt.step_calls() == 0);
    CHECK(w.item() == 1.0);
    REQUIRE(captured.messages.size() == 1);
    CHECK(captured.messages[0].find("GradScaler") != std::string::npos);
}

TEST_CASE("CosineAnnealingLR: PyTorch's closed form, base_lr at 0, eta_min at T_max, and back up past it")
{
    OneParameter p(0.1);
    optim::CosineAnnealingLR scheduler(p.sgd, /*T_max=*/10, /*eta_min=*/0.001);
    // eta_min + (base_lr - eta_min) * (1 + cos(pi * epoch / T_max)) / 2, written out (Python's math.cos):
    const std::map<std::int64_t, double> expected{{0, 0.1},   {1, 0.09757729755661011}, {3, 0.07959536998847742},
                                                  {5, 0.0505}, {9, 0.0034227024433899004}, {10, 0.001},
                                                  {15, 0.05049999999999999}, {20, 0.1}};
    for (std::int64_t epoch = 0; epoch <= 20; ++epoch) {
        if (expected.count(epoch) != 0) {
            CAPTURE(epoch);
            CHECK(close(p.sgd.param_groups()[0].lr, expected.at(epoch)));
        }
        CHECK(scheduler.get_last_lr()[0] == p.sgd.param_groups()[0].lr);
        CHECK(scheduler.last_epoch() == epoch);
        p.sgd.step();
        scheduler.step();
    }
}

TEST_CASE("LambdaLR: lr = base_lr * lr_lambda(step) for every group, from construction on")
{
    const Tensor a = ones({1}, f32).requires_grad_(), b = ones({1}, f32).requires_grad_();
    optim::SGD opt(std::vector<optim::ParamGroup>{{{a}, 0.1}, {{b}, 0.4}}, {});
    optim::LambdaLR scheduler(opt, [](std::int64_t step) { return 1.0 / double(step + 2); });
    // PyTorch's _initial_step: the groups start at base * lr_lambda(0), not at the base.
    CHECK(opt.param_groups()[0].lr == 0.1 / 2.0);
    CHECK(opt.param_groups()[1].lr == 0.4 / 2.0);
    CHECK(scheduler.base_lrs() == std::vector<double>{0.1, 0.4});
    a.set_grad(zeros({1}, f32));
    b.set_grad(zeros({1}, f32));
    opt.step();
    optim::LRScheduler& any = scheduler;  // stepped through the base, as a training loop holds it
    any.step();
    any.step();
    CHECK(opt.param_groups()[0].lr == 0.1 * (1.0 / 4.0));
    CHECK(opt.param_groups()[1].lr == 0.4 * (1.0 / 4.0));
    CHECK(any.get_last_lr() == std::vector<double>{0.1 / 4.0, 0.4 / 4.0});
    CHECK(any.last_epoch() == 2);
}

TEST_CASE("LambdaLR with the header's warmup + cosine gives nanoGPT's get_lr")
{
    const Tensor w = ones({1}, f32).requires_grad_();
    optim::AdamW opt({w}, {.lr = 6e-4});
    optim::LambdaLR scheduler(opt, nanogpt_factor);
    // What nanoGPT's get_lr(it) returns (Python, learning_rate 6e-4, warmup_iters 10, lr_decay_iters
    // 50, min_lr 6e-5): lr * (it + 1) / (W + 1) while warming up, the peak at W, half way at 30,
    // min_lr from 50 on. It computes in lrs, the factor in ratios: they agree to rounding.
    const std::map<std::int64_t, double> nanogpt{{0, 5.454545454545454e-05}, {1, 0.00010909090909090908},
                                                 {9, 0.0005454545454545454}, {10, 0.0005999999999999998},
                                                 {30, 0.00032999999999999994}, {50, 5.9999999999999995e-05},
                                                 {51, 5.9999999999999995e-05}, {60, 5.9999999999999995e-05}};
    w.set_grad(zeros({1}, f32));
    for (std::int64_t it = 0; it <= 60; ++it) {
        CAPTURE(it);
        if (nanogpt.count(it) != 0) CHECK(close(opt.param_groups()[0].lr, nanogpt.at(it)));
        opt.step();
        scheduler.step();
    }
}

TEST_CASE("CosineAnnealingLR and LambdaLR state round trips")
{
    OneParameter p(0.2);
    optim::CosineAnnealingLR cosine(p.sgd, 8, 0.01);
    for (int i = 0; i < 3; ++i) cosine.step();
    const optim::CosineAnnealingLRState saved = cosine.state_dict();
    CHECK(saved.last_epoch == 3);
    CHECK(saved.base_lrs == std::vector<double>{0.2});
    CHECK(saved.T_max == 8);
    CHECK(saved.eta_min == 0.01);

    OneParameter q(1.0);
    optim::CosineAnnealingLR restored(q.sgd, 100);
    restored.load_state_dict(saved);
    CHECK(q.sgd.param_groups()[0].lr == p.sgd.param_groups()[0].lr);
    cosine.step();
    restored.step();
    CHECK(restored.get_last_lr() == cosine.get_last_lr());
    CHECK(restored.last_epoch() == 4);

    OneParameter r(0.5);
    optim::LambdaLR lambda(r.sgd, nanogpt_factor);
    for (int i = 0; i < 12; ++i) lambda.step();
    const optim::LambdaLRState lambda_saved = lambda.state_dict();
    CHECK(lambda_saved.last_epoch == 12);
    CHECK(lambda_saved.base_lrs == std::vector<double>{0.5});
    OneParameter s(0.001);
    optim::LambdaLR lambda_restored(s.sgd, nanogpt_factor);  // the function comes from the code, not the state
    lambda_restored.load_state_dict(lambda_saved);
    CHECK(s.sgd.param_groups()[0].lr == r.sgd.param_groups()[0].lr);
    CHECK(s.sgd.param_groups()[0].lr == 0.5 * nanogpt_factor(12));
}

TEST_CASE("CosineAnnealingLR and LambdaLR refuse bad arguments and states that do not fit, changing nothing")
{
    OneParameter p(0.1);
    CHECK(test::error_message([&] { optim::CosineAnnealingLR(p.sgd, 0); }, ErrorKind::value).find("T_max must be a positive") !=
          std::string::npos);
    CHECK(test::error_message([&] { optim::CosineAnnealingLR(p.sgd, 10, -1e-3); }, ErrorKind::value).find("eta_min") !=
          std::string::npos);
    CHECK(test::error_message([&] { optim::LambdaLR(p.sgd, nullptr); }, ErrorKind::value).find("lr_lambda is empty") !=
          std::string::npos);

    optim::CosineAnnealingLR cosine(p.sgd, 10);
    cosine.step();
    const double lr = p.sgd.param_groups()[0].lr;
    optim::CosineAnnealingLRState two_groups = cosine.state_dict();
    two_groups.base_lrs.push_back(0.5);
    CHECK(test::error_message([&] { cosine.load_state_dict(two_groups); }, ErrorKind::value)
              .find("CosineAnnealingLR state has 2 base learning rates, but the optimizer has 1") != std::string::npos);
    optim::CosineAnnealingLRState no_period = cosine.state_dict();
    no_period.T_max = 0;
    CHECK(test::error_message([&] { cosine.load_state_dict(no_period); }, ErrorKind::value).find("T_max > 0") !=
          std::string::npos);
    optim::CosineAnnealingLRState negative = cosine.state_dict();
    negative.last_epoch = -1;
    CHECK(test::error_message([&] { cosine.load_state_dict(negative); }, ErrorKind::value).find("last_epoch -1") !=
          std::string::npos);
    CHECK(p.sgd.param_groups()[0].lr == lr);
    CHECK(cosine.last_epoch() == 1);
    CHECK(cosine.state_dict().T_max == 10);

    OneParameter q(0.1);
    optim::LambdaLR lambda(q.sgd, [](std::int64_t step) { return step < 2 ? 1.0 : std::nan(""); });
    lambda.step();
    CHECK(test::error_message([&] { lambda.step(); }, ErrorKind::value).find("lr_lambda(2) returned nan") != std::string::npos);
    CHECK(lambda.last_epoch() == 1);
    CHECK(q.sgd.param_groups()[0].lr == 0.1);
    optim::LambdaLRState bad_base{{0, {-0.1}}};
    CHECK(test::error_message([&] { lambda.load_state_dict(bad_base); }, ErrorKind::value)
              .find("LambdaLR state has a base learning rate of -0.1") != std::string::npos);
}

TEST_CASE("CosineAnnealingLR warns as StepLR does when it steps before the optimizer ever did")
{
    const Tensor w = ones({1}, f32).requires_grad_();
    optim::SGD opt({w}, {.lr = 0.1});
    optim::CosineAnnealingLR scheduler(opt, 5);
    CapturedWarnings captured;
    scheduler.step();
    REQUIRE(captured.messages.size() == 1);
    CHECK(captured.messages[0].find("Detected call of `lr_scheduler.step()` before `optimizer.step()`") == 0);
}
