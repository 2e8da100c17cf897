// GradScaler("cpu") against torch.amp.GradScaler("cpu") (golden grad_scaler.json): the defaults,
// and a scripted 20-iteration run (growth_interval 3, infs and NaNs injected, one explicit
// unscale_, one update(new_scale)) stepping an SGD with momentum. Scales are powers of two or
// given values and the update is PyTorch's, so the scale, the skips, the tracker and the
// parameters are compared exactly.
#include <doctest/doctest.h>

#include "tests/oracle/golden.h"

using namespace tinyamp;
using namespace tinyamp::oracle;

TEST_CASE("GradScaler(\"cpu\") has torch.amp.GradScaler(\"cpu\")'s defaults (golden)")
{
    const Json d = load_golden("grad_scaler")["defaults"];
    const amp::GradScaler scaler("cpu");
    CHECK(scaler.get_scale() == number(d["init_scale"]));
    CHECK(scaler.get_growth_factor() == number(d["growth_factor"]));
    CHECK(scaler.get_backoff_factor() == number(d["backoff_factor"]));
    CHECK(scaler.get_growth_interval() == d["growth_interval"].get<std::int64_t>());
    CHECK(scaler.is_enabled() == d["enabled"].get<bool>());
    CHECK(scaler.get_growth_tracker() == d["growth_tracker"].get<std::int32_t>());
    const std::map<std::string, double> state = scaler.state_dict();
    REQUIRE(state.size() == d["state_dict"].size());
    for (const auto& [key, value] : d["state_dict"].items()) {
        REQUIRE_MESSAGE(state.count(key), "state_dict has no key ", key);
        CHECK_MESSAGE(state.at(key) == number(value), "state_dict[", key, "]");
    }
    const amp::GradScaler disabled("cpu", {.enabled = false});
    CHECK(disabled.get_scale() == number(d["disabled_scale"]));
    CHECK(disabled.state_dict().size() == d["disabled_state_dict"].size());
}

TEST_CASE("a scripted GradScaler run with injected infs and NaNs follows PyTorch's scales, skips and parameters (golden)")
{
    const Json golden = load_golden("grad_scaler");
    const Json& o = golden["options"];
    std::vector<Tensor> params;
    for (std::size_t i = 0; i < golden["shapes"].size(); ++i)
        params.push_back(tensor(numbers(golden["initial_params"][i]), shape_of(golden["shapes"][i]), f32).requires_grad_());
    optim::SGD opt(params, {.lr = number(golden["sgd"]["lr"]), .momentum = number(golden["sgd"]["momentum"])});
    amp::GradScaler scaler("cpu", {.init_scale = number(o["init_scale"]),
                                   .growth_factor = number(o["growth_factor"]),
                                   .backoff_factor = number(o["backoff_factor"]),
                                   .growth_interval = o["growth_interval"].get<std::int64_t>()});
    int iteration = 0;
    for (const Json& it : golden["iterations"]) {
        CAPTURE(iteration);
        for (std::size_t i = 0; i < params.size(); ++i)
            params[i].set_grad(scaler.scale(tensor(numbers(it["grads"][i]), params[i].shape(), f32)));
        if (it["unscale_first"].get<bool>()) scaler.unscale_(opt);
        const bool stepped = scaler.step(opt);
        if (it["new_scale"].is_null())
            scaler.update();
        else
            scaler.update(number(it["new_scale"]));
        CHECK_MESSAGE(stepped == !it["skipped"].get<bool>(), "iteration ", iteration, ": tinyamp ", stepped ? "stepped" : "skipped");
        CHECK_MESSAGE(scaler.get_scale() == number(it["scale"]), "iteration ", iteration, ": scale ", hex(scaler.get_scale()), ", PyTorch ",
                      it["scale"].get<std::string>());
        CHECK_MESSAGE(scaler.get_growth_tracker() == it["growth_tracker"].get<std::int32_t>(), "iteration ", iteration, ": growth tracker");
        CHECK(scaler.history().back().skipped == it["skipped"].get<bool>());
        for (std::size_t i = 0; i < params.size(); ++i) {
            const std::vector<double> got = params[i].to_vector(), want = numbers(it["params"][i]);
            for (std::size_t e = 0; e < got.size(); ++e)
                CHECK_MESSAGE(same(got[e], want[e]), "iteration ", iteration, " param ", i, " element ", e, ": tinyamp ", hex(got[e]),
                              ", PyTorch ", hex(want[e]));
        }
        ++iteration;
    }
    const std::map<std::string, double> state = scaler.state_dict();
    for (const auto& [key, value] : golden["final_state_dict"].items()) {
        REQUIRE_MESSAGE(state.count(key), "state_dict has no key ", key);
        CHECK_MESSAGE(state.at(key) == number(value), "final state_dict[", key, "]");
    }
    MESSAGE(iteration, " iterations compared (scale, skip, tracker, parameters) and the final state_dict");
}
