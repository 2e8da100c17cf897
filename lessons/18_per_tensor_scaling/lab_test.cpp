// Lab 18's checks. Run them with:  build/lessons/lab_18  (or build/lessons/labs -ts=lab18)
#include <doctest/doctest.h>

#include <memory>
#include <vector>

#include "lessons/18_per_tensor_scaling/lab.h"

using namespace tinyamp;
using namespace tinyamp::lab18;

namespace {

bool approx_equal(const std::vector<double>& got, const std::vector<double>& want)
{
    if (got.size() != want.size()) return false;
    for (std::size_t i = 0; i < got.size(); ++i)
        if (got[i] != doctest::Approx(want[i]).epsilon(1e-6)) return false;
    return true;
}

}  // namespace

TEST_SUITE("lab18")
{
    TEST_CASE("lab 18.1: delayed_scales starts at 1, follows a step late, and a spike holds the scale down for L steps")
    {
        // Step 3 is a spike: cast with the old scale 448 (it saturates), then 448 / 100 for 3 steps.
        CHECK(approx_equal(delayed_scales({1, 1, 100, 1, 1, 1, 1}, 3), {1, 448, 448, 4.48, 4.48, 4.48, 448}));
        // A history of 1 forgets the spike at once.
        CHECK(approx_equal(delayed_scales({1, 1, 100, 1, 1}, 1), {1, 448, 448, 4.48, 448}));
        // margin 1 halves every scale after the first.
        CHECK(approx_equal(delayed_scales({2, 2, 2}, 4, 1), {1, 112, 112}));
        // An amax of 0 (an all-zero tensor) keeps the previous scale.
        CHECK(approx_equal(delayed_scales({0, 2, 2}, 4), {1, 1, 224}));
    }

    TEST_CASE("lab 18.2: flushed_share counts the nonzero values the E4M3 cast turns into 0")
    {
        const Tensor x = tensor({1.0, 0.001, 0.0001, 0.0}, {4}, f32);
        CHECK(flushed_share(x, 1.0) == doctest::Approx(1.0 / 3));    // 0.0001 < 2^-10: gone; 0.001 rounds up to 2^-9
        CHECK(flushed_share(x, 100.0) == 0.0);                      // scaled up, all three survive
        CHECK(flushed_share(x, 0.001) == doctest::Approx(2.0 / 3));  // a scale far too small: only 1 survives
        CHECK(flushed_share(zeros({3}), 1.0) == 0.0);
        CHECK(flushed_share(tensor({1000.0, 1.0}, {2}, f32), 1.0) == 0.0);  // saturating at 448 is not flushing
    }

    TEST_CASE("lab 18.3: fp8_train_step trains a small MLP in FP8, with delayed histories in its Linear layers")
    {
        manual_seed(0);
        auto fc1 = std::make_shared<nn::Linear>(16, 32), fc2 = std::make_shared<nn::Linear>(32, 4);
        nn::Sequential model;
        model.push_back(fc1);
        model.emplace_back<nn::ReLU>();
        model.push_back(fc2);
        optim::SGD optimizer(model.parameters(), {.lr = 0.1, .momentum = 0.9});
        Generator gen(0);
        const Tensor x = randn({32, 16}, f32, gen);
        const Tensor y = tensor({0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3}, {32}, i64);
        const amp::DelayedScaling recipe{.amax_history_len = 8};
        const double first = fp8_train_step(model, optimizer, x, y, recipe);
        REQUIRE(fc1->fp8_state != nullptr);  // the Linear ran fp8_linear with the delayed recipe
        CHECK(fc1->fp8_state->input.history.length() == 8);
        CHECK(fc1->fp8_state->input.history.values()[0] > 0.0f);  // the step's amax was recorded
        CHECK(fc1->fp8_state->input.scale != 1.0f);              // and the next step's scale computed
        CHECK(fc1->weight.grad().dtype() == f32);                // f32 master weights, f32 gradients
        double last = first;
        for (int step = 0; step < 30; ++step) last = fp8_train_step(model, optimizer, x, y, recipe);
        CHECK(first > 1.0);         // about ln 4 = 1.39 untrained
        CHECK(last < 0.5 * first);  // 31 FP8 steps on one batch: it fits
        CHECK_FALSE(amp::is_fp8_autocast_enabled());  // the region ended with the step
    }
}
