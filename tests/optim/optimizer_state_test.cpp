// Optimizer state_dict / load_state_dict: a restored optimizer continues exactly like the
// original, and a state that does not fit is refused without changing anything.
#include <doctest/doctest.h>

#include <functional>
#include <memory>

#include <tinyamp/tinyamp.h>

#include "tests/support/expect_error.h"

using namespace tinyamp;

namespace {

std::vector<Tensor> make_params()
{
    return {tensor({1.0, -2.0, 3.0}, {3}, f32).requires_grad_(), tensor({0.5, 0.25}, {2, 1}, f32).requires_grad_()};
}

// Gradients that depend on the step and the current values, so that state matters.
void set_grads(const std::vector<Tensor>& params, int step)
{
    for (const Tensor& p : params) {
        std::vector<double> g;
        for (double v : p.to_vector()) g.push_back(0.3 * v + 0.1 * step - 0.2);
        p.set_grad(tensor(g, p.shape(), f32));
    }
}

std::vector<double> flat(const std::vector<Tensor>& params)
{
    std::vector<double> out;
    for (const Tensor& p : params)
        for (double v : p.to_vector()) out.push_back(v);
    return out;
}

using Factory = std::function<std::unique_ptr<optim::Optimizer>(std::vector<Tensor>)>;

void check_round_trip(const Factory& make)
{
    std::vector<Tensor> a = make_params(), b = make_params();
    auto first = make(a);
    for (int s = 0; s < 3; ++s) {
        set_grads(a, s);
        first->step();
    }
    const optim::OptimizerStateDict saved = first->state_dict();
    {
        NoGradGuard no_grad;
        for (std::size_t i = 0; i < a.size(); ++i) b[i].copy_(a[i]);
    }
    auto second = make(b);
    second->load_state_dict(saved);
    for (int s = 3; s < 5; ++s) {
        set_grads(a, s);
        set_grads(b, s);
        first->step();
        second->step();
    }
    CHECK(flat(a) == flat(b));  // bit for bit
}

}  // namespace

TEST_CASE("optimizer state_dict round trip: SGD with momentum, Adam and AdamW continue bit for bit")
{
    check_round_trip([](std::vector<Tensor> p) { return std::make_unique<optim::SGD>(p, optim::SGDOptions{.lr = 0.1, .momentum = 0.9}); });
    check_round_trip([](std::vector<Tensor> p) { return std::make_unique<optim::Adam>(p, optim::AdamOptions{.lr = 0.05}); });
    check_round_trip([](std::vector<Tensor> p) { return std::make_unique<optim::AdamW>(p, optim::AdamWOptions{.lr = 0.05}); });
}

TEST_CASE("optimizer state_dict holds PyTorch's names, copies of the state, and the groups' hyperparameters")
{
    std::vector<Tensor> p = make_params();
    optim::Adam opt(p, {.lr = 0.05, .beta2 = 0.99});
    set_grads(p, 0);
    opt.step();
    optim::OptimizerStateDict sd = opt.state_dict();
    CHECK(sd.type == "Adam");
    REQUIRE(sd.param_groups.size() == 1);
    CHECK(sd.param_groups[0].params == std::vector<std::int64_t>{0, 1});
    CHECK(sd.param_groups[0].options.at("lr") == 0.05);
    CHECK(sd.param_groups[0].options.at("beta2") == 0.99);
    CHECK(sd.state.at(1).at("exp_avg").shape() == Shape{2, 1});
    CHECK(sd.state.at(0).at("step").item() == 1);
    sd.state.at(0).at("exp_avg").set({0}, 1234.0);  // a copy: the optimizer's own state is untouched
    CHECK(opt.state(p[0]).at("exp_avg").at({0}) != 1234.0);
}

TEST_CASE("optimizer load_state_dict refuses a state that does not fit and changes nothing")
{
    std::vector<Tensor> p = make_params(), q = make_params();
    optim::SGD opt(p, {.lr = 0.1, .momentum = 0.9}), control(q, {.lr = 0.1, .momentum = 0.9});
    set_grads(p, 0);
    set_grads(q, 0);
    opt.step();
    control.step();
    const optim::OptimizerStateDict good = opt.state_dict();

    const std::vector<double> buffer_before = opt.momentum_buffer(p[0]).to_vector();
    // Each bad state also carries another lr, which must not be applied.
    auto refused = [&](optim::OptimizerStateDict bad, ErrorKind kind, const std::string& expected) {
        for (auto& group : bad.param_groups)
            if (group.options["lr"] != -1) group.options["lr"] = 7;
        const std::string message = test::error_message([&] { opt.load_state_dict(bad); }, kind);
        CHECK_MESSAGE(message.find(expected) != std::string::npos, message);
        CHECK(opt.param_groups()[0].lr == 0.1);
        CHECK(opt.momentum_buffer(p[0]).to_vector() == buffer_before);
    };
    optim::OptimizerStateDict wrong_type = good;
    wrong_type.type = "Adam";
    refused(wrong_type, ErrorKind::value, "is for Adam, but this optimizer is SGD");
    optim::OptimizerStateDict two_groups = good;
    two_groups.param_groups.push_back(two_groups.param_groups[0]);
    refused(two_groups, ErrorKind::value, "2 parameter groups");
    optim::OptimizerStateDict fewer = good;
    fewer.param_groups[0].params.pop_back();
    refused(fewer, ErrorKind::value, "doesn't match the size");
    optim::OptimizerStateDict bad_shape = good;
    bad_shape.state[1]["momentum_buffer"] = zeros({5}, f32);
    refused(bad_shape, ErrorKind::shape, "has shape [5], but it must be [2, 1]");
    optim::OptimizerStateDict unknown = good;
    unknown.state[0]["exp_avg"] = zeros({3}, f32);
    refused(unknown, ErrorKind::value, "'exp_avg', which SGD does not keep");
    optim::OptimizerStateDict bad_option = good;
    bad_option.param_groups[0].options["momentum"] = -1;
    refused(bad_option, ErrorKind::value, "Invalid momentum value");
    optim::OptimizerStateDict bad_lr = good;
    bad_lr.param_groups[0].options["lr"] = -1;
    refused(bad_lr, ErrorKind::value, "Invalid learning rate: -1");
    optim::OptimizerStateDict foreign_option = good;
    foreign_option.param_groups[0].options["beta1"] = 0.9;
    refused(foreign_option, ErrorKind::value, "option 'beta1', which SGD does not have");
    optim::OptimizerStateDict integer_state = good;
    integer_state.state[0]["momentum_buffer"] = zeros({3}, i64);
    refused(integer_state, ErrorKind::value, "must be a floating point tensor");
    optim::OptimizerStateDict stray = good;
    stray.state[7]["momentum_buffer"] = zeros({3}, f32);
    refused(stray, ErrorKind::value, "state for parameter 7, which none of its parameter groups lists");

    // Nothing changed: the optimizer goes on exactly like one that was never given a bad state.
    CHECK(opt.param_groups()[0].lr == 0.1);
    set_grads(p, 1);
    set_grads(q, 1);
    opt.step();
    control.step();
    CHECK(flat(p) == flat(q));
}

TEST_CASE("optimizer load_state_dict refuses incomplete Adam state and groups that disagree, and changes nothing")
{
    std::vector<Tensor> p = make_params(), q = make_params();
    auto make = [](const std::vector<Tensor>& params) {
        return optim::Adam(std::vector<optim::ParamGroup>{{{params[0]}, 0.05}, {{params[1]}, 0.01}}, {.beta1 = 0.8});
    };
    optim::Adam opt = make(p), control = make(q);
    set_grads(p, 0);
    set_grads(q, 0);
    opt.step();
    control.step();
    const optim::OptimizerStateDict good = opt.state_dict();
    CHECK(good.param_groups[1].params == std::vector<std::int64_t>{1});
    CHECK(good.param_groups[1].options.at("lr") == 0.01);

    optim::OptimizerStateDict incomplete = good;
    incomplete.state[1].erase("exp_avg_sq");
    incomplete.param_groups[0].options["lr"] = 7;
    CHECK(test::error_message([&] { opt.load_state_dict(incomplete); }, ErrorKind::value).find("has no 'exp_avg_sq'") != std::string::npos);
    CHECK(opt.param_groups()[0].lr == 0.05);
    optim::OptimizerStateDict disagree = good;
    disagree.param_groups[1].options["beta1"] = 0.5;
    CHECK(test::error_message([&] { opt.load_state_dict(disagree); }, ErrorKind::value).find("group 1 has beta1 = 0.5") != std::string::npos);
    optim::OptimizerStateDict bad_step = good;
    bad_step.state[0]["step"] = zeros({1}, f32);
    CHECK(test::error_message([&] { opt.load_state_dict(bad_step); }, ErrorKind::shape).find("'step' of parameter 0 has shape [1]") !=
          std::string::npos);

    set_grads(p, 1);
    set_grads(q, 1);
    opt.step();
    control.step();
    CHECK(flat(p) == flat(q));
    CHECK(opt.state(p[0]).at("step").item() == 2);
}

TEST_CASE("optimizer load_state_dict maps saved parameters by position and converts state to the parameter's dtype")
{
    // PyTorch matches saved ids to parameters by their order in the groups, whatever the ids are.
    std::vector<Tensor> p = make_params();
    optim::SGD opt(p, {.lr = 0.1, .momentum = 0.9});
    optim::OptimizerStateDict sd;
    sd.type = "SGD";
    sd.param_groups.push_back({{{"lr", 0.5}, {"momentum", 0.5}}, {20, 10}});
    sd.state[10]["momentum_buffer"] = tensor({7.0, 8.0}, {2, 1}, f64);  // the second parameter's
    opt.load_state_dict(sd);
    CHECK(opt.param_groups()[0].lr == 0.5);
    CHECK(opt.state_dict().param_groups[0].options.at("momentum") == 0.5);
    CHECK(opt.momentum_buffer(p[0]).defined() == false);
    CHECK(opt.momentum_buffer(p[1]).dtype() == f32);
    CHECK(opt.momentum_buffer(p[1]).to_vector() == std::vector<double>{7, 8});
    // ... and numbers them 0.. again when saving.
    CHECK(opt.state_dict().state.count(1) == 1);
}

TEST_CASE("optimizer refuses a parameter given twice and an empty parameter list")
{
    const Tensor a = ones({2}).requires_grad_();
    CHECK(test::error_message([&] { optim::SGD(std::vector<optim::ParamGroup>{{{a}, 0.1}, {{a}, 0.2}}, {}); }, ErrorKind::value)
              .find("more than once") != std::string::npos);
    CHECK(test::error_message([&] { optim::Adam(std::vector<Tensor>{}); }, ErrorKind::value).find("empty parameter list") !=
          std::string::npos);
}
