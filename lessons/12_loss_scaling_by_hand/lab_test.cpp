// Lab 12's checks. Run them with:  build/lessons/labs -ts=lab12
#include <doctest/doctest.h>

#include <limits>
#include <vector>

#include "lessons/12_loss_scaling_by_hand/lab.h"

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
        CHECK(plain.grad().to_vector() == std::vector<double>{0.0, 0.0});  // 1e-9 is below 2^-24: lost in f16

        const Tensor w = tensor({1.0, 2.0}).requires_grad_();
        const Tensor scaled = scaled_backward(tiny_loss(w), 65536.0);
        CHECK(scaled.dtype() == f32);
        CHECK(scaled.item() == doctest::Approx(3e-9 * 65536.0));
        CHECK(w.grad().dtype() == f32);                                    // the master gradient
        CHECK(w.grad().at({0}) == doctest::Approx(6.5536e-5).epsilon(1e-3));  // 65536 * 1e-9, to f16's 3 digits
        CHECK(w.grad().at({1}) == doctest::Approx(6.5536e-5).epsilon(1e-3));
    }

    TEST_CASE("lab 12.2: unscale_and_check divides by S in f32 and finds inf/NaN")
    {
        const Tensor a = zeros({2}).requires_grad_();
        const Tensor b = zeros({1}).requires_grad_();
        const Tensor no_grad = zeros({1}).requires_grad_();  // never got a gradient: skipped
        a.set_grad(tensor({2048.0, 6.0}));
        b.set_grad(tensor({-1024.0}));
        CHECK(unscale_and_check({a, b, no_grad}, 1024.0) == false);
        CHECK(a.grad().to_vector() == std::vector<double>{2.0, 0.005859375});  // 6 / 1024
        CHECK(b.grad().at({0}) == -1.0);
        CHECK(a.grad().dtype() == f32);
        CHECK_FALSE(no_grad.grad().defined());

        const double inf = std::numeric_limits<double>::infinity();
        const Tensor c = zeros({2}).requires_grad_();
        c.set_grad(tensor({inf, 4.0}));
        CHECK(unscale_and_check({c}, 2.0) == true);
        CHECK(c.grad().at({1}) == 2.0);  // the finite ones are unscaled all the same
        c.set_grad(tensor({std::numeric_limits<double>::quiet_NaN(), 1.0}));
        CHECK(unscale_and_check({a, c}, 2.0) == true);
    }

    TEST_CASE("lab 12.3: pick_scale keeps S * max|g| within f16's 65504")
    {
        CHECK(pick_scale(1.0) == 32768.0);      // 65536 * 1 is past 65504
        CHECK(pick_scale(1e-3) == 33554432.0);  // 2^25: 2^25 * 1e-3 = 33554, 2^26 * 1e-3 = 67109
        CHECK(pick_scale(65504.0) == 1.0);
        CHECK(pick_scale(1e5) == 0.5);          // already past f16's max: S < 1 shrinks them
        CHECK_THROWS_AS(pick_scale(0.0), tinyamp::Error);
        CHECK_THROWS_AS(pick_scale(std::numeric_limits<double>::infinity()), tinyamp::Error);
    }
}
