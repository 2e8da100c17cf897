// Lab 06's checks. Run them with:  scripts/lab check 06
#include <cmath>
#include <memory>
#include <string>

#include "lessons/06_promote_and_banned/lab.h"
#include "lessons/support/lab_checks.h"

using namespace tinyamp;
using namespace tinyamp::lab06;

namespace {

// The region that casts what a CUDA run would: f16 and PyTorch's CUDA lists.
amp::AutocastOptions gpu_emulation()
{
    return {.dtype = f16, .table = std::make_shared<const amp::PolicyTable>(amp::PolicyTable::cuda())};
}

}  // namespace

TEST_SUITE("lab06")
{
    TEST_CASE("lab 06.1: cat under autocast runs in the widest input dtype")
    {
        const Tensor low = ones({2, 3}, bf16), high = ones({1, 3}, f32);
        LAB_CHECK("cat(bf16, f32) is f32: promote casts the bf16 part up, never the f32 part down",
                  cat_under_autocast({low, high}).dtype() == f32);
        LAB_CHECK("cat(f32, bf16) is f32 too: the widest dtype wins whatever the order of the parts",
                  cat_under_autocast({high, low}).dtype() == f32);
        LAB_CHECK("cat(bf16, bf16) stays bf16: there is nothing to widen",
                  cat_under_autocast({low, low}).dtype() == bf16);
        LAB_CHECK("cat(f32, f32) stays f32: promote never lowers (linear would have made them bf16)",
                  cat_under_autocast({high, high}).dtype() == f32);
        LAB_CHECK("cat joins along dim 0: a part of 2 rows and one of 1 row make 3 rows",
                  cat_under_autocast({low, high}).size(0) == 3);
        {
            INFO("an f16 part next to a bf16 one is refused under autocast; outside a region the same cat gives f32 "
                 "(mistake: calling cat outside the autocast region)");
            CHECK_THROWS_AS(cat_under_autocast({ones({1, 3}, f16), low}), tinyamp::Error);
        }
    }

    TEST_CASE("lab 06.2: safe_bce falls back to the logits form where BCE is banned")
    {
        const Tensor logits = tensor({0.0, 0.0, 0.0, 0.0}), targets = tensor({1.0, 0.0, 1.0, 0.0});
        {
            amp::autocast region("cpu", gpu_emulation());  // the CUDA table bans binary_cross_entropy
            const BceResult r = safe_bce(logits, targets);
            LAB_CHECK("the CUDA table bans binary_cross_entropy: safe_bce must fall back to the logits form and say so",
                      r.used_logits == true);
            LAB_CHECK("binary_cross_entropy_with_logits is an fp32 op under autocast: its loss is f32",
                      r.loss.dtype() == f32);
            LAB_CHECK("every logit is 0, so every sigmoid is 0.5 and the loss is log 2",
                      r.loss.item() == doctest::Approx(0.693147));
        }
        {
            amp::autocast region("cpu");  // the CPU table: BCE is fp32, not banned
            const BceResult r = safe_bce(logits, targets);
            LAB_CHECK("the CPU table runs binary_cross_entropy (fp32), so there is no fallback",
                      r.used_logits == false);
            LAB_CHECK("BCE of sigmoid(0) = 0.5 against 0/1 targets is log 2; BCE of the logits 0 themselves costs 100 for "
                      "each target 1 (mistake: passing the logits to binary_cross_entropy without sigmoid)",
                      r.loss.item() == doctest::Approx(0.693147));
        }
        const BceResult outside = safe_bce(logits, targets);  // no autocast: nothing is banned
        LAB_CHECK("outside autocast nothing is banned, so there is no fallback",
                  outside.used_logits == false);
        {
            INFO("an error that is not the ban (here a target of the wrong shape) reaches the caller");
            CHECK_THROWS_AS(safe_bce(tensor({0.0}), tensor({1.0, 0.0})), tinyamp::Error);
        }
        {
            INFO("the error that reaches the caller is binary_cross_entropy's own; a fallback on it would hide it behind "
                 "binary_cross_entropy_with_logits's (mistake: falling back on every Error)");
            CHECK_THROWS_WITH_AS(safe_bce(tensor({0.0}), tensor({1.0, 0.0})), doctest::Contains("binary_cross_entropy: target of shape"),
                                 tinyamp::Error);
        }
    }

    TEST_CASE("lab 06.3: one BCE-with-logits step under bf16 autocast updates the f32 weights")
    {
        const Tensor x = tensor({1, 0, 1, 1, 0, 0, 0, 1}, {4, 2});
        const Tensor targets = tensor({1, 1, 1, 0}, {4, 1});
        const Tensor w = zeros({1, 2}).requires_grad_(), b = zeros({1}).requires_grad_();
        double first = 0;
        std::string error;  // a tinyamp::Error from the step, if it throws one
        try {
            first = bce_logits_step(w, b, x, targets, 1.0);
        } catch (const tinyamp::Error& e) {
            error = e.what();
        }
        LAB_REQUIRE("the update must not be recorded by autograd: copy_ on a weight that requires grad throws while grad "
                    "mode is on (mistake: updating the weights without NoGradGuard)",
                    error == "");
        LAB_CHECK("all logits are 0 at the start, so the loss is log 2",
                  first == doctest::Approx(0.693147));
        // d loss / d b = mean(sigmoid(0) - t) = 0.5 - 0.75 = -0.25, so b = 0 - 1.0 * (-0.25)
        LAB_CHECK("d loss/d b = mean(sigmoid(0) - t) = -0.25, so one step of lr 1 gives b = 0.25",
                  b.item() == doctest::Approx(0.25));
        LAB_CHECK("the master weights stay f32: autocast casts copies of them, never the weights",
                  w.dtype() == f32);
        LAB_CHECK("d loss/d w0 = mean((0.5 - t) x0) = (-0.5 - 0.5 + 0 + 0) / 4 = -0.25, so w0 = 0.25",
                  w.at({0, 0}) == doctest::Approx(0.25));
        LAB_CHECK("d loss/d w1 = (0 - 0.5 + 0 + 0.5) / 4 = 0, so w1 stays 0",
                  w.at({0, 1}) == doctest::Approx(0.0));
        LAB_CHECK("the step leaves the gradients cleared for the next one (mistake: forgetting to clear the gradients)",
                  w.grad().defined() == false);
        LAB_CHECK("the step leaves the gradients cleared for the next one (mistake: forgetting to clear the gradients)",
                  b.grad().defined() == false);
        const double second = bce_logits_step(w, b, x, targets, 1.0);
        LAB_CHECK("a second step starts from the updated weights, so its loss is lower",
                  second < first);
        LAB_CHECK("the region ended with the forward: no cached casts are left behind",
                  amp::autocast_cache_size() == 0);
    }
}
