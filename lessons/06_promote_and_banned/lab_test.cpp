// Lab 6's checks. Run them with:  build/lessons/lab_06
#include <doctest/doctest.h>

#include <cmath>
#include <memory>

#include "lessons/06_promote_and_banned/lab.h"

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
        CHECK(cat_under_autocast({low, high}).dtype() == f32);  // bf16 is cast up, never f32 down
        CHECK(cat_under_autocast({high, low}).dtype() == f32);  // in either order
        CHECK(cat_under_autocast({low, low}).dtype() == bf16);
        CHECK(cat_under_autocast({high, high}).dtype() == f32);  // promote never lowers
        CHECK(cat_under_autocast({low, high}).size(0) == 3);
        CHECK_THROWS_AS(cat_under_autocast({ones({1, 3}, f16), low}), tinyamp::Error);  // f16 with bf16: refused
    }

    TEST_CASE("lab 06.2: safe_bce falls back to the logits form where BCE is banned")
    {
        const Tensor logits = tensor({0.0, 0.0, 0.0, 0.0}), targets = tensor({1.0, 0.0, 1.0, 0.0});
        {
            amp::autocast region("cpu", gpu_emulation());  // the CUDA table bans binary_cross_entropy
            const BceResult r = safe_bce(logits, targets);
            CHECK(r.used_logits == true);
            CHECK(r.loss.dtype() == f32);                      // binary_cross_entropy_with_logits is fp32
            CHECK(r.loss.item() == doctest::Approx(0.693147));  // log 2: every logit is 0
        }
        {
            amp::autocast region("cpu");  // the CPU table: BCE is fp32, not banned
            const BceResult r = safe_bce(logits, targets);
            CHECK(r.used_logits == false);
            CHECK(r.loss.item() == doctest::Approx(0.693147));
        }
        const BceResult outside = safe_bce(logits, targets);  // no autocast: nothing is banned
        CHECK(outside.used_logits == false);
        CHECK_THROWS_AS(safe_bce(tensor({0.0}), tensor({1.0, 0.0})), tinyamp::Error);  // other errors still surface
    }

    TEST_CASE("lab 06.3: one BCE-with-logits step under bf16 autocast updates the f32 weights")
    {
        const Tensor x = tensor({1, 0, 1, 1, 0, 0, 0, 1}, {4, 2});
        const Tensor targets = tensor({1, 1, 1, 0}, {4, 1});
        const Tensor w = zeros({1, 2}).requires_grad_(), b = zeros({1}).requires_grad_();
        const double first = bce_logits_step(w, b, x, targets, 1.0);
        CHECK(first == doctest::Approx(0.693147));  // all logits 0: log 2
        // d loss / d b = mean(sigmoid(0) - t) = 0.5 - 0.75 = -0.25, so b = 0 - 1.0 * (-0.25)
        CHECK(b.item() == doctest::Approx(0.25));
        CHECK(w.dtype() == f32);                    // the master weights stay f32
        CHECK(w.at({0, 0}) == doctest::Approx(0.25));  // d/dw0 = mean((0.5 - t) x0) = (-0.5 - 0.5 + 0 + 0) / 4
        CHECK(w.at({0, 1}) == doctest::Approx(0.0));   // d/dw1 = (0 - 0.5 + 0 + 0.5) / 4 = 0
        CHECK_FALSE(w.grad().defined());            // gradients cleared for the next step
        const double second = bce_logits_step(w, b, x, targets, 1.0);
        CHECK(second < first);
        CHECK(amp::autocast_cache_size() == 0);     // the region ended: no casts left behind
    }
}
