// StepLR: the learning rate of each group, epoch by epoch.
#include <doctest/doctest.h>

#include <cmath>

#include <tinyamp/tinyamp.h>

#include "tests/support/expect_error.h"

using namespace tinyamp;

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
