// Lab 13's checks. Run them with:  scripts/lab check 13
#include <cmath>
#include <limits>
#include <vector>

#include "lessons/13_grad_scaler_dynamics/lab.h"
#include "lessons/support/lab_checks.h"

using namespace tinyamp;
using namespace tinyamp::lab13;

TEST_SUITE("lab13")
{
    TEST_CASE("lab 13.1: replay_scales follows GradScaler's update rule")
    {
        LAB_CHECK("interval 3: the third clean step in a row doubles the scale, an overflow halves it (a doubling one step "
                  "late is the mistake: counting the clean step after comparing with growth_interval)",
                  replay_scales(65536.0, 3, {false, false, false, true, false}) ==
                      std::vector<double>{65536.0, 65536.0, 131072.0, 65536.0, 65536.0});
        LAB_CHECK("an overflow restarts the count: the two clean steps after it are needed again",
                  replay_scales(65536.0, 2, {false, true, false, false}) == std::vector<double>{65536.0, 32768.0, 32768.0, 65536.0});
        LAB_CHECK("interval 1: every clean step doubles (mistake: counting the clean step after comparing with growth_interval)",
                  replay_scales(128.0, 1, {false, false, true}) == std::vector<double>{256.0, 512.0, 256.0});
        LAB_CHECK("growth_factor and backoff_factor are parameters: use them, not 2 and 0.5",
                  replay_scales(4.0, 2, {false, false, true}, 4.0, 0.25) == std::vector<double>{4.0, 16.0, 4.0});
        LAB_CHECK("2^127 * 2 is inf as an f32 number, so the scale stays 2^127 (mistake: letting the scale grow to inf)",
                  replay_scales(std::ldexp(1.0, 127), 1, {false}) == std::vector<double>{std::ldexp(1.0, 127)});
    }

    TEST_CASE("lab 13.2: count_skipped reads the skips off the scale sequence")
    {
        LAB_CHECK("only a fall is a skip: an unchanged scale was a clean step (mistake: counting an unchanged scale as a skip)",
                  count_skipped(65536.0, {65536.0, 32768.0, 32768.0, 65536.0, 32768.0}) == 2);
        LAB_CHECK("compare the first scale with init_scale: an init_scale too large skips the first steps",
                  count_skipped(65536.0, {32768.0, 16384.0, 8192.0}) == 3);
        LAB_CHECK("no update, no skip",
                  count_skipped(1024.0, {}) == 0);

        // A real scaler: an inf injected in iterations 2 and 4 of 5.
        const Tensor w = zeros({2}).requires_grad_();
        optim::SGD opt({w}, {.lr = 0.1});
        amp::GradScaler scaler("cpu", {.init_scale = 128.0, .growth_interval = 2});
        std::vector<double> scales;
        for (int i = 1; i <= 5; ++i) {
            opt.zero_grad();
            const double bad = (i == 2 || i == 4) ? std::numeric_limits<double>::infinity() : 1.0;
            scaler.scale(sum(mul(w, tensor({bad, 1.0})))).backward();
            scaler.step(opt);
            scaler.update();
            scales.push_back(scaler.get_scale());
        }
        REQUIRE(scales == std::vector<double>{128.0, 64.0, 64.0, 32.0, 32.0});
        LAB_CHECK("a real GradScaler with infs injected in iterations 2 and 4 skipped 2 steps",
                  count_skipped(128.0, scales) == 2);
    }

    TEST_CASE("lab 13.3: clip_and_step clips the true gradients, not the scaled ones")
    {
        const Tensor w = zeros({2}).requires_grad_();
        optim::SGD opt({w}, {.lr = 1.0});
        amp::GradScaler scaler("cpu", {.init_scale = 1024.0});
        scaler.scale(sum(mul(w, tensor({3.0, 4.0})))).backward();  // true gradient (3, 4), norm 5
        REQUIRE(w.grad().at({0}) == 3072.0);                         // stored 1024 times too large
        LAB_CHECK("the true gradient (3, 4) has norm 5; 5120 is the norm of the scaled one (mistake: clipping before unscale_)",
                  clip_and_step(scaler, opt, 1.0) == doctest::Approx(5.0));
        LAB_CHECK("clipped to norm 1 the gradient is (0.6, 0.8); with lr 1 the step is -(0.6, 0.8)",
                  w.at({0}) == doctest::Approx(-0.6));
        LAB_CHECK("clipped to norm 1 the gradient is (0.6, 0.8); with lr 1 the step is -(0.6, 0.8)",
                  w.at({1}) == doctest::Approx(-0.8));
        LAB_CHECK("one clean step does not grow the scale (the interval is 2000)",
                  scaler.get_scale() == 1024.0);
        LAB_CHECK("update() counts the clean step: the tracker should be 1 (mistake: forgetting scaler.update())",
                  scaler.get_growth_tracker() == 1);

        // An overflow: the norm is inf, the step is skipped, the scale halves.
        opt.zero_grad();
        scaler.scale(sum(mul(w, tensor({std::numeric_limits<double>::infinity(), 1.0})))).backward();
        const double norm_with_inf = clip_and_step(scaler, opt, 1.0);
        CAPTURE(norm_with_inf);
        LAB_CHECK("an inf gradient has an inf norm",
                  std::isinf(norm_with_inf));
        LAB_CHECK("the scaler skips the step when a gradient is inf: the weights stay",
                  w.at({0}) == doctest::Approx(-0.6));
        LAB_CHECK("a skipped step halves the scale at update() (mistake: forgetting scaler.update())",
                  scaler.get_scale() == 512.0);
    }
}
