// Lab 12's checks. Run them with:  scripts/lab check 12
#include <limits>
#include <vector>

#include "lessons/12_loss_scaling_by_hand/lab.h"
#include "lessons/support/lab_checks.h"

using namespace tinyamp;
using namespace tinyamp::lab12;

namespace {

// loss = 1e-9 * sum(w), computed through an f16 copy of w: the gradient 1e-9 reaches w through
// an f16 cast, as gradients reach f32 master weights through autocast's casts.
Tensor tiny_loss(const Tensor& w) { return mul(sum(w.to(f16).to(f32)), 1e-9); }

}  // namespace

TEST_SUITE("lab12")
{
    TEST_CASE("lab 12.1: scaled_backward lifts a 1e-9 gradient into f16's range")
    {
        const Tensor plain = tensor({1.0, 2.0}).requires_grad_();
        tiny_loss(plain).backward();
        REQUIRE(plain.grad().to_vector() == std::vector<double>{0.0, 0.0});  // 1e-9 is below 2^-24: lost in f16

        const Tensor w = tensor({1.0, 2.0}).requires_grad_();
        const Tensor scaled = scaled_backward(tiny_loss(w), 65536.0);
        LAB_CHECK("the scaled loss keeps the loss's dtype, f32: multiplying by a plain number does not promote it",
                  scaled.dtype() == f32);
        LAB_CHECK("it returns the scaled loss, 65536 * 3e-9, not the loss",
                  scaled.item() == doctest::Approx(3e-9 * 65536.0));
        LAB_REQUIRE("backward from the scaled loss reaches w: it has a gradient", w.grad().defined());
        LAB_CHECK("the gradient lands on the f32 master weight in f32",
                  w.grad().dtype() == f32);
        LAB_CHECK("scaled by 65536, the 1e-9 gradient survives the f16 cast as 6.55e-5, to f16's 3 digits",
                  w.grad().at({0}) == doctest::Approx(6.5536e-5).epsilon(1e-3));
        LAB_CHECK("scaled by 65536, the 1e-9 gradient survives the f16 cast as 6.55e-5, to f16's 3 digits",
                  w.grad().at({1}) == doctest::Approx(6.5536e-5).epsilon(1e-3));
        // doctest::Approx's default scale of 1 makes the two checks above absolute (within 1e-3 of
        // 6.55e-5, which 0 is too); scale(0) makes the tolerance relative to 6.55e-5.
        LAB_CHECK("scaled by 65536, the 1e-9 gradient survives the f16 cast as 6.55e-5 (within 0.1 %), not 0 "
                  "(mistake: calling backward on the unscaled loss)",
                  w.grad().at({0}) == doctest::Approx(6.5536e-5).epsilon(1e-3).scale(0));
        LAB_CHECK("scaled by 65536, the 1e-9 gradient survives the f16 cast as 6.55e-5 (within 0.1 %), not 0 "
                  "(mistake: calling backward on the unscaled loss)",
                  w.grad().at({1}) == doctest::Approx(6.5536e-5).epsilon(1e-3).scale(0));
    }

    TEST_CASE("lab 12.2: unscale_and_check divides by S in f32 and finds inf/NaN")
    {
        const Tensor a = zeros({2}).requires_grad_();
        const Tensor b = zeros({1}).requires_grad_();
        const Tensor no_grad = zeros({1}).requires_grad_();  // never got a gradient: skipped
        a.set_grad(tensor({2048.0, 6.0}));
        b.set_grad(tensor({-1024.0}));
        LAB_CHECK("finite gradients: found_inf is false",
                  unscale_and_check({a, b, no_grad}, 1024.0) == false);
        LAB_CHECK("each gradient is divided by S = 1024 in place: {2048, 6} becomes {2, 6 / 1024}",
                  a.grad().to_vector() == std::vector<double>{2.0, 0.005859375});
        LAB_CHECK("every parameter's gradient is unscaled, not only the first one's",
                  b.grad().at({0}) == -1.0);
        LAB_CHECK("the gradients stay f32",
                  a.grad().dtype() == f32);
        const bool no_grad_has_grad = no_grad.grad().defined();
        LAB_CHECK("a parameter without a gradient is skipped: it still has none",
                  no_grad_has_grad == false);

        // S need not be a power of two; then times float(1/S) and divided by S round differently.
        // GradScaler's own unscale_ of the same gradients is the reference.
        const Tensor d = zeros({2}).requires_grad_();
        d.set_grad(tensor({5.0, 7.0}));
        LAB_CHECK("finite gradients: found_inf is false",
                  unscale_and_check({d}, 3.0) == false);
        const Tensor e = zeros({2}).requires_grad_();
        e.set_grad(tensor({5.0, 7.0}));
        optim::SGD opt({e}, {.lr = 0.1});
        amp::GradScaler scaler("cpu", {.init_scale = 3.0});
        (void)scaler.scale(sum(e));  // the scaler's scale exists from its first scale()
        scaler.unscale_(opt);
        REQUIRE(e.grad().to_vector() == std::vector<double>{1.6666667461395264, 2.3333334922790527});
        LAB_CHECK("{5, 7} unscaled by S = 3 as GradScaler does: times float(1.0 / 3), not divided by 3 "
                  "(mistake: dividing by the scale instead of multiplying by its f32 reciprocal)",
                  d.grad().to_vector() == e.grad().to_vector());

        const double inf = std::numeric_limits<double>::infinity();
        const Tensor c = zeros({2}).requires_grad_();
        c.set_grad(tensor({inf, 4.0}));
        LAB_CHECK("a gradient holding an inf: found_inf is true",
                  unscale_and_check({c}, 2.0) == true);
        LAB_CHECK("the finite gradients are unscaled all the same: 4 / 2 = 2 "
                  "(mistake: returning at the first inf before unscaling every gradient)",
                  c.grad().at({1}) == 2.0);
        c.set_grad(tensor({std::numeric_limits<double>::quiet_NaN(), 1.0}));
        LAB_CHECK("a NaN counts as an inf: found_inf is true, even when an earlier parameter was finite",
                  unscale_and_check({a, c}, 2.0) == true);
    }

    TEST_CASE("lab 12.3: pick_scale keeps S * max|g| within f16's 65504")
    {
        LAB_CHECK("65536 * 1 is past 65504, f16's largest number: S = 32768 "
                  "(mistake: taking 65536 as f16's largest number)",
                  pick_scale(1.0) == 32768.0);
        LAB_CHECK("2^25 * 1e-3 = 33554 fits, 2^26 * 1e-3 = 67109 does not: S = 2^25",
                  pick_scale(1e-3) == 33554432.0);
        LAB_CHECK("65504 itself fits: S = 1",
                  pick_scale(65504.0) == 1.0);
        LAB_CHECK("1e5 is already past 65504: a scale below 1, S = 0.5, shrinks it into range "
                  "(mistake: never choosing a scale below 1)",
                  pick_scale(1e5) == 0.5);
        {
            INFO("a max |g| of 0 leaves no largest power of two: pick_scale throws");
            CHECK_THROWS_AS(pick_scale(0.0), tinyamp::Error);
        }
        {
            INFO("a max |g| of inf fits no scale: pick_scale throws");
            CHECK_THROWS_AS(pick_scale(std::numeric_limits<double>::infinity()), tinyamp::Error);
        }
    }
}
