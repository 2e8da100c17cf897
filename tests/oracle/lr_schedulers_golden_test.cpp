// StepLR, CosineAnnealingLR and LambdaLR against torch.optim.lr_scheduler (golden
// lr_schedulers.json): every group's lr at every step of an SGD with two groups, and the defaults.
#include <doctest/doctest.h>

#include <functional>
#include <memory>
#include <numbers>
#include <set>

#include "tests/oracle/golden.h"

using namespace tinyamp;
using namespace tinyamp::oracle;

namespace {

// nanoGPT's get_lr(it) / learning_rate, as tools/oracle/scenarios/lr_schedulers.py writes it, with
// the golden's warmup, decay_end and min_ratio.
std::function<double(std::int64_t)> nanogpt_factor(const Json& args)
{
    const auto w = args["warmup"].get<std::int64_t>(), d = args["decay_end"].get<std::int64_t>();
    const double min_ratio = number(args["min_ratio"]);
    return [=](std::int64_t it) {
        if (it < w) return double(it + 1) / double(w + 1);
        if (it > d) return min_ratio;
        const double decay = double(it - w) / double(d - w);
        return min_ratio + 0.5 * (1.0 + std::cos(std::numbers::pi * decay)) * (1.0 - min_ratio);
    };
}

std::unique_ptr<optim::LRScheduler> make_scheduler(const std::string& kind, optim::Optimizer& optimizer, const Json& args)
{
    if (kind == "StepLR")
        return std::make_unique<optim::StepLR>(optimizer, args["step_size"].get<std::int64_t>(), number(args["gamma"]));
    if (kind == "CosineAnnealingLR")
        return std::make_unique<optim::CosineAnnealingLR>(optimizer, args["T_max"].get<std::int64_t>(),
                                                          args.contains("eta_min") ? number(args["eta_min"]) : 0.0);
    REQUIRE(kind == "LambdaLR");
    return std::make_unique<optim::LambdaLR>(optimizer, nanogpt_factor(args));
}

}  // namespace

TEST_CASE("StepLR's gamma and CosineAnnealingLR's eta_min default to PyTorch's (golden)")
{
    const Json d = load_golden("lr_schedulers")["defaults"];
    optim::SGD opt({zeros({1}).requires_grad_()}, {.lr = 1.0});
    CHECK(optim::StepLR(opt, 1).state_dict().gamma == number(d["StepLR.gamma"]));
    CHECK(optim::CosineAnnealingLR(opt, 1).state_dict().eta_min == number(d["CosineAnnealingLR.eta_min"]));
}

TEST_CASE("StepLR, CosineAnnealingLR and LambdaLR set PyTorch's lrs step by step (golden)")
{
    const Json golden = load_golden("lr_schedulers");
    // Known difference (docs/differences_from_pytorch.md, section 7): PyTorch's step() computes
    // StepLR's and CosineAnnealingLR's lr from the group's last lr (a recursive form, whose
    // rounding builds up: 20 ulps by step 20 of the cosine); tinyamp always uses the closed form
    // from the base, which PyTorch has too (_get_closed_form_lr) and which the golden records.
    const std::set<std::string> closed_form_differs{"step", "cosine", "cosine_eta_min_0"};
    std::set<std::string> seen_differing;
    int compared = 0;
    for (const Json& c : golden["cases"]) {
        const std::string name = c["case"];
        CAPTURE(name);
        const Tensor a = zeros({2}).requires_grad_(), b = zeros({2}).requires_grad_();
        const std::vector<double> group_lrs = numbers(c["group_lrs"]);
        optim::SGD opt(std::vector<optim::ParamGroup>{{{a}, group_lrs.at(0)}, {{b}, group_lrs.at(1)}}, {});
        a.set_grad(zeros({2}));
        b.set_grad(zeros({2}));
        const std::unique_ptr<optim::LRScheduler> scheduler = make_scheduler(c["scheduler"], opt, c["args"]);
        for (std::size_t step = 0; step < c["steps"].size(); ++step) {
            const Json& want = c["steps"][step];
            const std::vector<double> torch_lrs = numbers(want["lrs"]);
            const std::vector<double> reference = want.contains("closed_form") ? numbers(want["closed_form"]) : torch_lrs;
            for (std::size_t g = 0; g < 2; ++g) {
                const double lr = opt.param_groups()[g].lr;
                CHECK(scheduler->get_last_lr().at(g) == lr);
                // cos and pow from two libms may differ by an ulp; the arithmetic is the same.
                CHECK_MESSAGE(close(lr, reference[g], f64, 2), name, " step ", step, " group ", g, ": tinyamp ", hex(lr),
                              ", PyTorch ", hex(reference[g]));
                if (torch_lrs[g] != reference[g]) seen_differing.insert(name);
                ++compared;
            }
            opt.step();
            scheduler->step();
        }
        if (closed_form_differs.count(name) == 0)
            CHECK_MESSAGE(seen_differing.count(name) == 0, name, ": PyTorch's lrs left its closed form in a case not listed");
    }
    // Each listed difference must still show, or the list is out of date.
    CHECK(seen_differing == closed_form_differs);
    MESSAGE(compared, " lrs compared");
}
