// Lab 14's checks. Run them with:  build/lessons/lab_14  (or build/lessons/labs -ts=lab14)
#include <doctest/doctest.h>

#include <limits>
#include <memory>
#include <vector>

#include "lessons/14_training_run/lab.h"

using namespace tinyamp;
using namespace tinyamp::lab14;

namespace {

// A small classifier of 4 features into 3 classes, the same every time.
std::shared_ptr<nn::Sequential> small_model()
{
    manual_seed(0);
    auto model = std::make_shared<nn::Sequential>();
    model->emplace_back<nn::Linear>(4, 8);
    model->emplace_back<nn::ReLU>();
    model->emplace_back<nn::Linear>(8, 3);
    return model;
}

}  // namespace

TEST_SUITE("lab14")
{
    TEST_CASE("lab 14.1: amp_train_step steps on a clean batch and skips a batch with an inf")
    {
        const auto model = small_model();
        optim::SGD optimizer(model->parameters(), {.lr = 0.1});
        // growth_interval 1: every clean step doubles the scale, so update() shows in get_scale().
        amp::GradScaler scaler("cpu", {.init_scale = 65536.0, .growth_interval = 1});
        Generator gen(0);
        const Tensor x = randn({16, 4}, f32, gen);
        const Tensor y = tensor({0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0}, {16}, i64);
        const Tensor w = model->parameters()[0];
        const std::vector<double> w_before = w.detach().to_vector();

        const StepResult clean = amp_train_step(*model, optimizer, scaler, x, y, f16);
        CHECK(clean.stepped == true);
        CHECK(clean.loss > 0.5);   // about ln 3 = 1.1 for an untrained 3-class model:
        CHECK(clean.loss < 5.0);   // the loss itself, not the scaled loss (65536 times larger)
        CHECK(w.grad().dtype() == f32);                  // gradients of the f32 master weights
        CHECK(w.detach().to_vector() != w_before);       // the optimizer stepped
        CHECK(scaler.get_scale() == 131072.0);           // update() after a clean step: 65536 * 2

        Tensor bad = x.clone();
        bad.set({3, 1}, std::numeric_limits<double>::infinity());
        const std::vector<double> w_clean = w.detach().to_vector();
        const StepResult skipped = amp_train_step(*model, optimizer, scaler, bad, y, f16);
        CHECK(skipped.stepped == false);
        CHECK(w.detach().to_vector() == w_clean);        // a skipped step leaves the weights alone
        CHECK(scaler.get_scale() == 65536.0);            // update() after an overflow: 131072 * 0.5
    }

    TEST_CASE("lab 14.2: accuracy counts the right predictions, without gradients, and restores training mode")
    {
        nn::Linear identity(2, 2, /*bias=*/false);
        {
            NoGradGuard no_grad;
            identity.weight.copy_(tensor({1, 0, 0, 1}, {2, 2}, f32));  // logits = features
        }
        const Tensor x = tensor({1, 0, 0, 1, 2, 1, 0, 3}, {4, 2}, f32);  // predicted classes 0, 1, 0, 1
        CHECK(accuracy(identity, x, tensor({0, 1, 1, 1}, {4}, i64)) == 0.75);
        CHECK(accuracy(identity, x, tensor({0, 1, 0, 1}, {4}, i64)) == 1.0);
        CHECK(accuracy(identity, x, tensor({1, 0, 1, 0}, {4}, i64)) == 0.0);
        CHECK(accuracy(identity, x, tensor({0, 1, 1, 1}, {4}, i64), bf16) == 0.75);
        CHECK(identity.is_training() == true);
        CHECK(identity.weight.grad().defined() == false);  // nothing was backpropagated
    }

    TEST_CASE("lab 14.3: forward_peak_bytes shows autocast's fixed cost (weight copies) and its saving (activations)")
    {
        manual_seed(0);
        nn::Sequential model;
        model.emplace_back<nn::Linear>(64, 256);
        model.emplace_back<nn::ReLU>();
        model.emplace_back<nn::Linear>(256, 10);
        const std::int64_t copies = model.num_parameters() * 2;  // 19,210 parameters in bf16: 38,420 bytes
        CHECK(copies == 38420);
        Generator gen(1);
        const Tensor x1 = randn({1, 64}, f32, gen), y1 = tensor({3}, {1}, i64);
        const Tensor x1024 = randn({1024, 64}, f32, gen), y1024 = zeros({1024}, i64);

        CHECK(forward_peak_bytes(model, x1, y1) < 38420);         // f32, one sample: a few KiB of activations
        CHECK(forward_peak_bytes(model, x1, y1, bf16) >= 38420);  // autocast holds the bf16 weight copies
        const std::int64_t f32_big = forward_peak_bytes(model, x1024, y1024);
        const std::int64_t bf16_big = forward_peak_bytes(model, x1024, y1024, bf16);
        CHECK(f32_big > 2 * 1024 * 256 * 4);     // two [1024, 256] f32 activations at least
        CHECK(bf16_big < f32_big);              // at batch 1024 the bf16 activations win
        CHECK(amp::autocast_cache_size() == 0);  // the region ended, and the cache with it
    }
}
