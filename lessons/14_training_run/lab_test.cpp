// Lab 14's checks. Run them with:  scripts/lab check 14
#include <limits>
#include <memory>
#include <vector>

#include "lessons/14_training_run/lab.h"
#include "lessons/support/lab_checks.h"

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
        LAB_CHECK("a clean batch has finite gradients: the scaler steps",
                  clean.stepped == true);
        LAB_CHECK("an untrained 3-class model's loss is about ln 3 = 1.1",
                  clean.loss > 0.5);
        LAB_CHECK("it returns the loss itself, about 1.1, not the scaled loss (65536 times larger) "
                  "(mistake: returning the scaled loss)",
                  clean.loss < 5.0);
        LAB_CHECK("the gradients of the f32 master weights are f32",
                  w.grad().dtype() == f32);
        LAB_CHECK("the optimizer stepped: the weights moved",
                  w.detach().to_vector() != w_before);
        LAB_CHECK("update() after a clean step, with growth interval 1, doubles the scale: 65536 * 2",
                  scaler.get_scale() == 131072.0);

        Tensor bad = x.clone();
        bad.set({3, 1}, std::numeric_limits<double>::infinity());
        const std::vector<double> w_clean = w.detach().to_vector();
        const StepResult skipped = amp_train_step(*model, optimizer, scaler, bad, y, f16);
        LAB_CHECK("an inf in the batch makes the gradients inf: the scaler skips the step",
                  skipped.stepped == false);
        LAB_CHECK("a skipped step leaves the weights alone",
                  w.detach().to_vector() == w_clean);
        LAB_CHECK("update() after an overflow halves the scale: 131072 * 0.5",
                  scaler.get_scale() == 65536.0);

        // A gradient left over from an earlier batch (here an inf) must not reach this step.
        w.set_grad(full_like(w, std::numeric_limits<double>::infinity()));
        const std::vector<double> w_stale = w.detach().to_vector();
        const StepResult fresh = amp_train_step(*model, optimizer, scaler, x, y, f16);
        LAB_CHECK("an old gradient does not count: a clean batch steps even though an inf gradient was left from before "
                  "(mistake: forgetting optimizer.zero_grad())",
                  fresh.stepped == true);
        LAB_CHECK("an old gradient does not count: a clean batch moves the weights",
                  w.detach().to_vector() != w_stale);
    }

    TEST_CASE("lab 14.2: accuracy counts the right predictions, without gradients, and restores training mode")
    {
        nn::Linear identity(2, 2, /*bias=*/false);
        {
            NoGradGuard no_grad;
            identity.weight.copy_(tensor({1, 0, 0, 1}, {2, 2}, f32));  // logits = features
        }
        const Tensor x = tensor({1, 0, 0, 1, 2, 1, 0, 3}, {4, 2}, f32);  // predicted classes 0, 1, 0, 1
        LAB_CHECK("3 of the 4 predictions (0, 1, 0, 1) match the labels (0, 1, 1, 1): 0.75",
                  accuracy(identity, x, tensor({0, 1, 1, 1}, {4}, i64)) == 0.75);
        LAB_CHECK("all 4 predictions match: 1.0",
                  accuracy(identity, x, tensor({0, 1, 0, 1}, {4}, i64)) == 1.0);
        LAB_CHECK("no prediction matches: 0.0",
                  accuracy(identity, x, tensor({1, 0, 1, 0}, {4}, i64)) == 0.0);
        LAB_CHECK("under bf16 autocast the predictions are the same: 0.75",
                  accuracy(identity, x, tensor({0, 1, 1, 1}, {4}, i64), bf16) == 0.75);
        LAB_CHECK("the model is back in training mode afterwards (mistake: leaving the model in eval mode)",
                  identity.is_training() == true);
        LAB_CHECK("nothing was backpropagated: the weight has no gradient",
                  identity.weight.grad().defined() == false);

        // The same layer followed by a dropout that drops everything in training mode.
        nn::Sequential dropped;
        const auto layer = dropped.emplace_back<nn::Linear>(2, 2, /*bias=*/false);
        dropped.emplace_back<nn::Dropout>(1.0);
        {
            NoGradGuard no_grad;
            layer->weight.copy_(tensor({1, 0, 0, 1}, {2, 2}, f32));
        }
        const Tensor x1 = tensor({0, 1, 0, 2, 1, 3, 0, 5}, {4, 2}, f32);  // class 1 for every sample
        LAB_CHECK("in eval mode dropout is the identity, so all 4 predictions are right; in training mode it zeroes "
                  "the logits (mistake: forgetting model.eval())",
                  accuracy(dropped, x1, tensor({1, 1, 1, 1}, {4}, i64)) == 1.0);
        LAB_CHECK("the model is back in training mode afterwards (mistake: leaving the model in eval mode)",
                  dropped.is_training() == true);
    }

    TEST_CASE("lab 14.3: forward_peak_bytes shows autocast's fixed cost (weight copies) and its saving (activations)")
    {
        manual_seed(0);
        nn::Sequential model;
        model.emplace_back<nn::Linear>(64, 256);
        model.emplace_back<nn::ReLU>();
        model.emplace_back<nn::Linear>(256, 10);
        const std::int64_t copies = model.num_parameters() * 2;  // 19,210 parameters in bf16: 38,420 bytes
        REQUIRE(copies == 38420);
        Generator gen(1);
        const Tensor x1 = randn({1, 64}, f32, gen), y1 = tensor({3}, {1}, i64);
        const Tensor x1024 = randn({1024, 64}, f32, gen), y1024 = zeros({1024}, i64);

        LAB_CHECK("f32, one sample: a few KiB of activations, under the 38,420 bytes of bf16 weight copies",
                  forward_peak_bytes(model, x1, y1) < 38420);
        LAB_CHECK("bf16, one sample: autocast holds bf16 copies of the weights, 38,420 bytes at least",
                  forward_peak_bytes(model, x1, y1, bf16) >= 38420);
        const std::int64_t f32_big = forward_peak_bytes(model, x1024, y1024);
        const std::int64_t bf16_big = forward_peak_bytes(model, x1024, y1024, bf16);
        LAB_CHECK("f32, 1024 samples: two [1024, 256] f32 activations at least, 2 * 1024 * 256 * 4 bytes",
                  f32_big > 2 * 1024 * 256 * 4);
        LAB_CHECK("at batch 1024 the bf16 activations win: bf16's peak is below f32's",
                  bf16_big < f32_big);
        LAB_CHECK("the autocast region ended, and its cache of weight copies with it",
                  amp::autocast_cache_size() == 0);

        { const Tensor scratch = zeros({1 << 20}); }  // 4 MiB, freed again: a peak from before the call
        LAB_CHECK("a peak reached before the call (a 4 MiB tensor, freed since) is not the forward's "
                  "(mistake: forgetting reset_peak_memory_stats())",
                  forward_peak_bytes(model, x1, y1) < 38420);
    }
}
