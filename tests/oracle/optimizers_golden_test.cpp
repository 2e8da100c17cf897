// SGD, Adam and AdamW against PyTorch (golden optimizers.json): the defaults, and 10-step
// trajectories of two f32 parameters with given gradients (one step leaves a parameter without a
// gradient). tinyamp's f32 update loops claim the operations of PyTorch's single-tensor
// optimizers in the same order, so every parameter and state value is compared bit for bit.
#include <doctest/doctest.h>

#include <memory>

#include "tests/oracle/golden.h"

using namespace tinyamp;
using namespace tinyamp::oracle;

namespace {

double option(const Json& options, const char* key, double fallback) { return options.contains(key) ? number(options[key]) : fallback; }

std::unique_ptr<optim::Optimizer> make_optimizer(const Json& run, const std::vector<Tensor>& params)
{
    const std::string type = run["optimizer"];
    const Json& o = run["options"];
    if (type == "SGD") {
        const optim::SGDOptions d;
        return std::make_unique<optim::SGD>(params, optim::SGDOptions{.lr = option(o, "lr", d.lr),
                                                                     .momentum = option(o, "momentum", d.momentum),
                                                                     .dampening = option(o, "dampening", d.dampening),
                                                                     .weight_decay = option(o, "weight_decay", d.weight_decay),
                                                                     .nesterov = o.value("nesterov", d.nesterov)});
    }
    const bool adamw = type == "AdamW";
    const optim::AdamOptions a;
    const optim::AdamWOptions w;
    const double beta1 = o.contains("betas") ? number(o["betas"][0]) : a.beta1;
    const double beta2 = o.contains("betas") ? number(o["betas"][1]) : a.beta2;
    if (adamw)
        return std::make_unique<optim::AdamW>(params, optim::AdamWOptions{.lr = option(o, "lr", w.lr), .beta1 = beta1, .beta2 = beta2,
                                                                          .eps = option(o, "eps", w.eps),
                                                                          .weight_decay = option(o, "weight_decay", w.weight_decay)});
    return std::make_unique<optim::Adam>(params, optim::AdamOptions{.lr = option(o, "lr", a.lr), .beta1 = beta1, .beta2 = beta2,
                                                                    .eps = option(o, "eps", a.eps),
                                                                    .weight_decay = option(o, "weight_decay", a.weight_decay)});
}

// Bit for bit; the message names the first element that differs.
void check_exact(const std::string& what, const std::vector<double>& got, const Json& expected)
{
    const std::vector<double> want = numbers(expected);
    REQUIRE_MESSAGE(got.size() == want.size(), what, ": ", got.size(), " values, PyTorch has ", want.size());
    for (std::size_t i = 0; i < got.size(); ++i)
        if (!same(got[i], want[i])) {
            FAIL_CHECK(what, " element ", i, ": tinyamp ", hex(got[i]), ", PyTorch ", hex(want[i]));
            return;
        }
    CHECK(true);
}

}  // namespace

TEST_CASE("SGD, Adam and AdamW have PyTorch's defaults (golden)")
{
    const Json d = load_golden("optimizers")["defaults"];
    const optim::SGDOptions sgd;
    CHECK(sgd.lr == number(d["SGD"]["lr"]));
    CHECK(sgd.momentum == number(d["SGD"]["momentum"]));
    CHECK(sgd.dampening == number(d["SGD"]["dampening"]));
    CHECK(sgd.weight_decay == number(d["SGD"]["weight_decay"]));
    CHECK(sgd.nesterov == d["SGD"]["nesterov"].get<bool>());
    const optim::AdamOptions adam;
    const optim::AdamWOptions adamw;
    const auto adam_defaults = {std::tuple{"Adam", adam.lr, adam.beta1, adam.beta2, adam.eps, adam.weight_decay},
                                std::tuple{"AdamW", adamw.lr, adamw.beta1, adamw.beta2, adamw.eps, adamw.weight_decay}};
    for (const auto& [name, lr, beta1, beta2, eps, wd] : adam_defaults) {
        CAPTURE(name);
        CHECK(lr == number(d[name]["lr"]));
        CHECK(beta1 == number(d[name]["betas"][0]));
        CHECK(beta2 == number(d[name]["betas"][1]));
        CHECK(eps == number(d[name]["eps"]));
        CHECK(wd == number(d[name]["weight_decay"]));
        CHECK_FALSE(d[name]["amsgrad"].get<bool>());  // tinyamp has no amsgrad: right only while PyTorch's default is off
    }
    for (const char* name : {"SGD", "Adam", "AdamW"}) CHECK_FALSE(d[name]["maximize"].get<bool>());  // tinyamp always minimizes
}

TEST_CASE("SGD, Adam and AdamW trajectories equal PyTorch's bit for bit (golden)")
{
    const Json golden = load_golden("optimizers");
    int compared = 0;
    for (const Json& run : golden["runs"]) {
        const std::string label = text(run["optimizer"].get<std::string>(), ' ', run["label"].get<std::string>());
        std::vector<Tensor> params;
        for (std::size_t i = 0; i < golden["shapes"].size(); ++i) {
            params.push_back(tensor(numbers(golden["initial_params"][i]), shape_of(golden["shapes"][i]), f32).requires_grad_());
            params.back().set_name(text("p", i));
        }
        auto opt = make_optimizer(run, params);
        for (std::size_t step = 0; step < run["params_after_step"].size(); ++step) {
            opt->zero_grad();
            for (std::size_t i = 0; i < params.size(); ++i) {
                const Json& g = golden["grads"][step][i];
                if (!g.is_null()) params[i].set_grad(tensor(numbers(g), params[i].shape(), f32));
            }
            opt->step();
            for (std::size_t i = 0; i < params.size(); ++i, ++compared)
                check_exact(text(label, " step ", step + 1, " p", i), params[i].to_vector(),
                            run["params_after_step"][step][i]);
        }
        for (std::size_t i = 0; i < params.size(); ++i)
            for (const auto& [key, values] : run["final_state"][i].items()) {
                const auto& state = opt->state(params[i]);
                REQUIRE_MESSAGE(state.count(key), label, " p", i, " has no state ", key);
                check_exact(text(label, " final ", key, " p", i), state.at(key).to_vector(), values);
                ++compared;
            }
    }
    MESSAGE(compared, " optimizer tensors compared bit for bit");
}
