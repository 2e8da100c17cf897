// Lab 13's checks. Run them with:  build/lessons/labs -ts=lab13
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "lessons/13_grad_scaler_dynamics/lab.h"

using namespace tinyamp;
using namespace tinyamp::lab13;

TEST_SUITE("lab13")
{
    TEST_CASE("lab 13.1: replay_scales follows GradScaler's update rule")
    {
        // interval 3: two clean steps count, the third doubles; an overflow halves.
        CHECK(replay_scales(65536.0, 3, {false, false, false, true, false}) ==
              std::vector<double>{65536.0, 65536.0, 131072.0, 65536.0, 65536.0});
        // an overflow restarts the count: the two clean steps after it are needed again
        CHECK(replay_scales(65536.0, 2, {false, true, false, false}) == std::vector<double>{65536.0, 32768.0, 32768.0, 65536.0});
        CHECK(replay_scales(128.0, 1, {false, false, true}) == std::vector<double>{256.0, 512.0, 256.0});
        CHECK(replay_scales(4.0, 2, {false, false, true}, 4.0, 0.25) == std::vector<double>{4.0, 16.0, 4.0});
        // 2^127 * 2 is inf as an f32: the scale stays
        CHECK(replay_scales(std::ldexp(1.0, 127), 1, {false}) == std::vector<double>{std::ldexp(1.0, 127)});
    }

    TEST_CASE("lab 13.2: count_skipped reads the skips off the scale sequence")
    {
        CHECK(count_skipped(65536.0, {65536.0, 32768.0, 32768.0, 65536.0, 32768.0}) == 2);
        CHECK(count_skipped(65536.0, {32768.0, 16384.0, 8192.0}) == 3);  // init_scale too large at first
        CHECK(count_skipped(1024.0, {}) == 0);

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
        CHECK(scales == std::vector<double>{128.0, 64.0, 64.0, 32.0, 32.0});
        CHECK(count_skipped(128.0, scales) == 2);
    }

    TEST_CASE("lab 13.3: clip_and_step clips the true gradients, not the scaled ones")
    {
        const Tensor w = zeros({2}).requires_grad_();
        optim::SGD opt({w}, {.lr = 1.0});
        amp::GradScaler scaler("cpu", {.init_scale = 1024.0});
        scaler.scale(sum(mul(w, tensor({3.0, 4.0})))).backward();  // true gradient (3, 4), norm 5
        CHECK(w.grad().at({0}) == 3072.0);                           // stored 1024 times too large
        CHECK(clip_and_step(scaler, opt, 1.0) == doctest::Approx(5.0));  // not 5120
        CHECK(w.at({0}) == doctest::Approx(-0.6));  // clipped to norm 1: (0.6, 0.8), lr 1
        CHECK(w.at({1}) == doctest::Approx(-0.8));
        CHECK(scaler.get_scale() == 1024.0);
        CHECK(scaler.get_growth_tracker() == 1);  // update() ran and counted one clean step

        // An overflow: the norm is inf, the step is skipped, the scale halves.
        opt.zero_grad();
        scaler.scale(sum(mul(w, tensor({std::numeric_limits<double>::infinity(), 1.0})))).backward();
        CHECK(std::isinf(clip_and_step(scaler, opt, 1.0)));
        CHECK(w.at({0}) == doctest::Approx(-0.6));
        CHECK(scaler.get_scale() == 512.0);
    }
}
