// Lesson 4: mixed precision by hand, with f32 master weights (Apex's O2 idea, which autocast
// automates). A bf16 copy of the weights does forward and backward; its gradients go to f32 master
// weights; the optimizer updates the masters; the bf16 copy is refreshed from them. Kept in bf16
// themselves, the weights stop learning once lr * grad is smaller than half the gap between bf16
// numbers: the updates round away, exactly like 1 + 1e-4 in lesson 2.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "lessons/support/lesson.h"

using namespace tinyamp;

namespace {

constexpr std::int64_t kSamples = 256;
constexpr std::int64_t kFeatures = 16;
constexpr int kSteps = 300;
constexpr double kLr = 0.02;

// A linear regression y = X w_true with no noise: the best weights reach loss 0 in exact arithmetic.
struct Problem {
    Tensor x, y, w_true;
};

Problem make_problem()
{
    Generator gen(0);
    Problem p;
    p.x = randn({kSamples, kFeatures}, f32, gen);
    p.w_true = add(mul(randn({kFeatures}, f32, gen), 0.5), 1.5);  // weights around 1.5, in [0.3, 2.7]
    p.y = matmul(p.x, p.w_true);
    return p;
}

// The loss of weights `w` (any dtype) measured in f32 on the f32 data: how good the weights are,
// without the rounding of a low-precision forward pass.
double f32_loss(const Problem& p, const Tensor& w)
{
    NoGradGuard no_grad;
    return mse_loss(matmul(p.x, w.to(f32)), p.y).item();
}

// One forward and backward of the regression with weights `w`, in w's dtype (data rounded to it).
void forward_backward(const Problem& p, const Tensor& w)
{
    mse_loss(matmul(p.x.to(w.dtype()), w), p.y.to(w.dtype())).backward();
}

struct Run {
    std::vector<double> loss;   // f32_loss after each step, step 0 = the start
    Tensor weights;             // what the model computes with at the end
    int changed_last_50 = 0;    // weights that changed over the last 50 steps
};

// Runs `one_step` kSteps times; `weights` is what the model computes with. Records the f32 loss
// before the first step and after each, and how many weights changed over the last 50 steps.
template <class Step>
Run run_steps(const Problem& p, const Tensor& weights, Step one_step)
{
    Run r;
    r.loss.push_back(f32_loss(p, weights));
    Tensor before;
    for (int step = 1; step <= kSteps; ++step) {
        if (step == kSteps - 50) before = weights.detach().clone();
        one_step();
        r.loss.push_back(f32_loss(p, weights));
    }
    const std::vector<double> a = before.to_vector(), b = weights.to_vector();
    for (std::size_t i = 0; i < a.size(); ++i) r.changed_last_50 += a[i] != b[i] ? 1 : 0;
    r.weights = weights.detach();
    return r;
}

Run train_plain(const Problem& p, DType dtype)
{
    const Tensor w = zeros({kFeatures}, dtype).requires_grad_();
    optim::SGD opt({w}, {.lr = kLr});
    return run_steps(p, w, [&] {
        opt.zero_grad();
        forward_backward(p, w);
        opt.step();  // for bf16 weights: p - lr * g computed in f32, rounded once to bf16
    });
}

// The master-weight recipe. `master` is f32 and the only tensor the optimizer knows; `model` is its
// bf16 copy, a separate leaf that the forward and backward use.
Run train_with_master(const Problem& p, DType low)
{
    const Tensor master = zeros({kFeatures}, f32).requires_grad_();
    const Tensor model = master.detach().to(low).requires_grad_();
    optim::SGD opt({master}, {.lr = kLr});
    return run_steps(p, model, [&] {
        model.set_grad(Tensor());
        forward_backward(p, model);                   // 1. forward and backward in bf16
        master.set_grad(model.grad().to(f32));        // 2. the bf16 gradient into the f32 master
        opt.step();                                   // 3. the update, in f32
        NoGradGuard no_grad;
        model.copy_(master);                          // 4. refresh the bf16 copy (rounds once)
    });
}

lesson::Series curve(const std::string& label, const std::vector<double>& loss, const char* color)
{
    lesson::Series s{label, {}, {}, color, false};
    for (std::size_t i = 0; i < loss.size(); ++i) {
        s.x.push_back(static_cast<double>(i));
        s.y.push_back(loss[i]);
    }
    return s;
}

void step_one_weight(lesson::Lesson& L)
{
    L.step("One weight, one small update, 100 times");
    L.expect("w = 1 and lr * grad = 1e-4 (lesson 2: 1 - 1e-4 is not a bf16 number). A bf16 weight stays\n"
             "exactly 1 after 100 updates. An f32 master weight reaches 0.99, and its bf16 copy is the bf16\n"
             "number nearest 0.99 (0.98828125): the copy moves because the master remembers.");
    const Tensor w16 = ones({1}, bf16).requires_grad_();
    const Tensor master = ones({1}, f32).requires_grad_();
    optim::SGD opt16({w16}, {.lr = 1e-4});
    optim::SGD opt32({master}, {.lr = 1e-4});
    for (int i = 0; i < 100; ++i) {
        w16.set_grad(ones({1}, bf16));
        master.set_grad(ones({1}, f32));
        opt16.step();
        opt32.step();
    }
    const double copy = master.detach().to(bf16).item();
    std::printf("   bf16 weight after 100 steps of -1e-4: %.9g\n", w16.item());
    std::printf("   f32 master after 100 steps:           %.9g  (its bf16 copy: %.9g)\n", master.item(), copy);
    L.check(w16.item() == 1.0, "the bf16 weight never moved: every 1 - 1e-4 rounded back to 1");
    L.check(std::abs(master.item() - 0.99) < 1e-5, "the f32 master reached 0.99");
    L.check(copy == 0.98828125, "its bf16 copy is 0.98828125, the bf16 number nearest 0.99");
    L.key_result("bf16 weight after 100 updates of 1e-4: 1 (unchanged); f32 master: 0.99");
}

void step_recipe(lesson::Lesson& L, const Problem& p)
{
    L.step("The recipe: a bf16 model, f32 master weights");
    L.expect("Per step: (1) forward and backward with the bf16 copy, so its .grad is bf16; (2) that gradient,\n"
             "converted, becomes the f32 master's .grad; (3) the optimizer updates the f32 master; (4) the\n"
             "bf16 copy is overwritten with the rounded master. Memory per weight: 4 + 2 bytes (+ grads).");
    {
        const Tensor m = zeros({kFeatures}, f32).requires_grad_().set_name("master");
        const Tensor c = m.detach().to(bf16).requires_grad_().set_name("copy");
        forward_backward(p, c);
        m.set_grad(c.grad().to(f32));
        std::printf("   copy: %s leaf %d, grad %s;  master: %s, grad %s;  bytes master %lld + copy %lld\n", dtype_name(c.dtype()),
                    c.is_leaf(), dtype_name(c.grad().dtype()), dtype_name(m.dtype()), dtype_name(m.grad().dtype()),
                    static_cast<long long>(m.nbytes()), static_cast<long long>(c.nbytes()));
        L.check(c.grad().dtype() == bf16 && m.grad().dtype() == f32, "the copy's gradient is bf16; the master's is f32");
        L.check(!c.shares_storage_with(m) && m.nbytes() == 2 * c.nbytes(), "the copy is separate storage, half the master's bytes");
    }
}

void step_regression(lesson::Lesson& L, const Problem& p)
{
    L.step("Training a linear regression three ways");
    L.expect("y = X w_true (256 samples, 16 weights near 1.5), full-batch SGD, lr 0.02, 300 steps. f32 goes\n"
             "to ~0. Pure bf16 weights stall: once lr * grad (= 0.04 * error) is below half a bf16 gap\n"
             "(2^-8 = 0.0039 for weights in [1, 2)) no weight moves, and errors of up to ~0.2 stay. With f32\n"
             "masters the bf16 model keeps improving, down to about the loss of w_true rounded to bf16.");
    const Run full = train_plain(p, f32);
    const Run pure = train_plain(p, bf16);
    const Run mixed = train_with_master(p, bf16);
    for (int s : {0, 10, 50, 100, 200, 300})
        std::printf("   step %3d   f32 %-11s pure bf16 %-11s bf16 + f32 master %s\n", s, lesson::fmt(full.loss[s]).c_str(),
                    lesson::fmt(pure.loss[s]).c_str(), lesson::fmt(mixed.loss[s]).c_str());
    std::printf("   largest |w - w_true| at the end: f32 %s, pure bf16 %s, bf16 copy of the master %s\n",
                lesson::fmt(lesson::max_abs_difference(full.weights, p.w_true)).c_str(),
                lesson::fmt(lesson::max_abs_difference(pure.weights, p.w_true)).c_str(),
                lesson::fmt(lesson::max_abs_difference(mixed.weights, p.w_true)).c_str());
    std::printf("   weights changed in the last 50 steps: pure bf16 %d of 16, with master %d of 16\n", pure.changed_last_50,
                mixed.changed_last_50);
    const double best_bf16 = f32_loss(p, p.w_true.to(bf16));
    std::printf("   the loss of w_true rounded to bf16 (about the best a bf16 model can do): %s\n", lesson::fmt(best_bf16).c_str());
    L.write_plot("loss_curves",
                 lesson::LinePlot{"Linear regression: where the weights live",
                                  "step",
                                  "loss of the weights (f32 MSE, log scale)",
                                  true,
                                  {curve("f32", full.loss, "#3c78dc"), curve("pure bf16 weights", pure.loss, "#d04040"),
                                   curve("bf16 model + f32 master", mixed.loss, "#e8862a")},
                                  {},
                                  {{best_bf16, "w_true rounded to bf16", "#888888"}}},
                 "Loss per step: pure bf16 weights stall early (updates round away); with f32 master weights the bf16 "
                 "model goes down to the loss of the best bf16 weights; f32 goes on towards 0.");
    L.check(pure.changed_last_50 == 0, "pure bf16: no weight changed in the last 50 steps (stalled)");
    L.check(pure.loss[kSteps] > 100 * mixed.loss[kSteps], "pure bf16 ends more than 100x worse than bf16 with f32 masters");
    L.check(mixed.loss[kSteps] < 5 * best_bf16, "with masters, the bf16 model gets within 5x of the best bf16 weights' loss");
    L.check(lesson::max_abs_difference(pure.weights, p.w_true) > 10 * lesson::max_abs_difference(mixed.weights, p.w_true),
            "pure bf16 weights end more than 10x further from w_true than the master-weight model's");
    L.check(full.loss[kSteps] < mixed.loss[kSteps], "f32 ends below both (its weights are not rounded to bf16)");
    L.say("The master-weight model does not settle exactly on the best bf16 weights: its gradient comes from a\n"
          "bf16 forward pass (X, y and X w rounded to bf16), which is noisy at the 1e-3 level, so its bf16\n"
          "copy jitters by a gap or two around them. The pure bf16 model never gets that far.");

    L.key_result("linear regression after 300 steps: loss " + lesson::fmt(pure.loss[kSteps]) + " with bf16 weights vs " +
                 lesson::fmt(mixed.loss[kSteps]) + " with f32 masters (f32: " + lesson::fmt(full.loss[kSteps]) + ")");
}

void run(lesson::Lesson& L)
{
    L.say("16-bit weights halve the memory and feed fast 16-bit matmuls, but an optimizer step is a tiny\n"
          "change to a large number: w - lr * grad. In bf16 (8 bits of precision) such a change is\n"
          "often below half the gap to the next number, and it rounds away.");
    step_one_weight(L);
    const Problem p = make_problem();  // the regression of steps 2 and 3
    step_recipe(L, p);
    step_regression(L, p);
}

const lesson::Registration registered{{4, "manual_mixed_precision", "Mixed precision by hand: f32 master weights",
                                       "f32 master weights keep the small updates a bf16 weight loses", run}};

}  // namespace
