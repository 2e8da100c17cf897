// Lesson 18: per-tensor scaling, current vs delayed. E4M3 holds 2^-9 .. 448, so a tensor is
// multiplied by a scale before its cast. Current scaling takes the scale from the tensor itself
// (one more pass over it); delayed scaling (Transformer Engine) takes it from the amaxes of the
// last L steps, which costs nothing extra but is stale: a spike saturates, and then holds the
// scale down for L steps. Then the digits MLP trains in f32, bf16, fp8-current and fp8-delayed.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "lessons/support/lesson.h"
#include "training/trainer.h"

using namespace tinyamp;

namespace {

constexpr int kHistory = 4;            // the delayed recipe's amax_history_len in step 2
constexpr int kSteps = 12;             // steps of step 2
constexpr int kSpikeStep = 5;          // the step whose tensor is kSpike times larger
constexpr double kSpike = 1e4;
const std::string kSpikeText = "10000";
constexpr std::int64_t kEpochs = 8;    // step 3: digits epochs per mode

std::string pct(double share) { return lesson::fmt(100 * share) + " %"; }

// The cast of fp8_linear's input, as the trace noted it (the first forward fp8_linear event).
trace::ScaledCast input_cast(const trace::Trace& t)
{
    for (const trace::Event& e : t.events())
        if (e.phase == trace::Phase::forward && e.op == "fp8_linear")
            for (const trace::ScaledCast& c : e.scaled_casts)
                if (c.role == "input") return c;
    throw std::runtime_error("no fp8_linear input cast in the trace");
}

// One fp8_linear forward (no gradient), recorded: the input's cast and the output's error
// against the f32 product.
struct CastSeen {
    trace::ScaledCast cast;
    double product_error = 0;  // ||y - x W^T|| / ||x W^T||
};

CastSeen run_linear(const Tensor& x, const Tensor& w, const amp::ScalingRecipe& recipe,
                    const std::shared_ptr<Fp8LinearState>& state = nullptr)
{
    trace::Trace t;
    Tensor y;
    {
        trace::TraceRecorder recorder(t);
        y = fp8_linear(x, w, Tensor(), recipe, state);
    }
    return {input_cast(t), lesson::relative_difference(y, matmul(x, w.t()))};
}

void step_why_a_scale(lesson::Lesson& L)
{
    L.step("Why FP8 needs a scale");
    L.expect("Activations of size about 0.003 sit at the bottom of E4M3's range (smallest subnormal 2^-9 = 0.00195,\n"
             "smallest normal 2^-6 = 0.0156). Cast as they are (scale 1), the values below 2^-10 become 0 (about a\n"
             "quarter of them) and the rest are subnormals with 1 to 3 bits: the product is off by over 10 %.\n"
             "Multiplied first by 448 / amax, the largest lands on 448 and the others keep E4M3's 3 bits: none\n"
             "flush, and the product is off by about 4 % (E4M3's rounding of x and of W).");
    Generator gen(0);
    const Tensor x = mul(randn({64, 256}, f32, gen), 0.003);
    const Tensor w = mul(randn({128, 256}, f32, gen), 1.0 / 16);
    // Delayed scaling's first step casts with scale 1 (TE starts there): the unscaled cast.
    const CastSeen unscaled = run_linear(x, w, amp::DelayedScaling{.amax_history_len = 1}, std::make_shared<Fp8LinearState>(1));
    const CastSeen current = run_linear(x, w, amp::Float8CurrentScaling{});
    std::printf("   %-18s %10s %12s %12s %14s\n", "cast of x", "scale", "flushed", "saturated", "product error");
    for (const auto& [name, seen] : {std::pair{"scale 1", unscaled}, std::pair{"448 / amax", current}})
        std::printf("   %-18s %10s %12s %12s %14s\n", name, lesson::fmt(seen.cast.scale).c_str(), pct(seen.cast.flushed_share).c_str(),
                    pct(seen.cast.saturated_share).c_str(), pct(seen.product_error).c_str());
    L.check(unscaled.cast.scale == 1.0 && unscaled.cast.flushed_share > 0.15 && unscaled.product_error > 0.10,
            "cast with scale 1, more than 15 % of x flushes to 0 and the product is off by more than 10 %");
    L.check(std::abs(current.cast.scale * current.cast.amax - 448.0) < 1e-3 * 448.0,
            "current scaling multiplies by 448 / amax: the largest |x| lands on E4M3's 448");
    L.check(current.cast.flushed_share < 0.001 && current.cast.saturated_share <= 1.0 / double(x.numel()) && current.product_error < 0.05,
            "scaled, under 0.1 % flushes, at most the largest value saturates, and the product is off by under 5 %");
    L.key_result("E4M3 cast of activations ~0.003: product error " + pct(unscaled.product_error) + " at scale 1, " +
                 pct(current.product_error) + " at 448 / amax");
}

void step_spike(lesson::Lesson& L)
{
    L.step("Current vs delayed scaling, and a spike");
    L.expect("Each step casts a new tensor of the same size (amax about 4). Delayed scaling (history of " + std::to_string(kHistory) +
             " steps)\nuses scale 1 at step 1, then 448 / max(history): close to current scaling's scale, computed a step late.\n"
             "At step " + std::to_string(kSpikeStep) + " the tensor is " + kSpikeText +
             "x larger. Current scaling follows it. Delayed scaling casts it with the old scale: almost\n"
             "every value saturates at 448. Then the spike sits in the history for " + std::to_string(kHistory) +
             " steps, and the normal tensors are cast\nwith a scale " + kSpikeText +
             "x too small: the values below about 0.09 flush to 0 (several percent), most of the others\n"
             "become subnormals with fewer bits, and the product error grows by half. At step " + std::to_string(kSpikeStep + kHistory + 1) +
             " the spike has left the window and the scale is back.");
    Generator gen(1);
    const Tensor w = mul(randn({128, 256}, f32, gen), 1.0 / 16);
    const amp::DelayedScaling delayed{.amax_history_len = kHistory};
    const auto state = std::make_shared<Fp8LinearState>(kHistory);
    std::vector<CastSeen> d, c;
    std::printf("   %4s %9s | %10s %10s %9s %9s | %10s %9s %9s\n", "step", "amax", "delayed", "saturated", "flushed", "error", "current",
                "flushed", "error");
    lesson::Series delayed_scale{"delayed scale", {}, {}, "#c0392b", true}, current_scale{"current scale", {}, {}, "#3c78dc", true};
    lesson::Series delayed_error{"delayed", {}, {}, "#c0392b", true}, current_error{"current", {}, {}, "#3c78dc", true};
    for (int step = 1; step <= kSteps; ++step) {
        Tensor x = randn({64, 256}, f32, gen);
        if (step == kSpikeStep) x = mul(x, kSpike);
        d.push_back(run_linear(x, w, delayed, state));
        c.push_back(run_linear(x, w, amp::Float8CurrentScaling{}));
        const CastSeen &a = d.back(), &b = c.back();
        std::printf("   %4d %9s | %10s %10s %9s %9s | %10s %9s %9s\n", step, lesson::fmt(a.cast.amax).c_str(), lesson::fmt(a.cast.scale).c_str(),
                    pct(a.cast.saturated_share).c_str(), pct(a.cast.flushed_share).c_str(), pct(a.product_error).c_str(),
                    lesson::fmt(b.cast.scale).c_str(), pct(b.cast.flushed_share).c_str(), pct(b.product_error).c_str());
        delayed_scale.x.push_back(step);
        delayed_scale.y.push_back(a.cast.scale);
        current_scale.x.push_back(step);
        current_scale.y.push_back(b.cast.scale);
        delayed_error.x.push_back(step);
        delayed_error.y.push_back(100 * a.product_error);
        current_error.x.push_back(step);
        current_error.y.push_back(100 * b.product_error);
    }
    const auto at = [](const std::vector<CastSeen>& v, int step) -> const CastSeen& { return v[std::size_t(step - 1)]; };
    const auto close = [](double a, double b) { return a < 1.25 * b && b < 1.25 * a; };
    L.check(at(d, 1).cast.scale == 1.0, "step 1: delayed scaling has no history yet and casts with scale 1 (TE's start)");
    bool tracks = true;
    for (int step = 2; step < kSpikeStep; ++step) tracks = tracks && close(at(d, step).cast.scale, at(c, step).cast.scale);
    L.check(tracks, "steps 2-" + std::to_string(kSpikeStep - 1) + ": the delayed scale is within 25 % of the current one");
    const CastSeen &spike_d = at(d, kSpikeStep), &spike_c = at(c, kSpikeStep);
    L.check(spike_d.cast.saturated_share > 0.9 && spike_d.product_error > 0.5 && spike_c.cast.saturated_share <= 1.0 / (64 * 256) &&
                spike_c.product_error < 0.04,
            "at the spike, delayed scaling saturates over 90 % of the tensor (product error over 50 %); current scaling adapts "
            "(error under 4 %)");
    bool held = true, hurts = true;
    double worst_flush = 1, worst_ratio = 1e30;
    for (int step = kSpikeStep + 1; step <= kSpikeStep + kHistory; ++step) {
        const CastSeen &a = at(d, step), &b = at(c, step);
        held = held && close(a.cast.scale * kSpike, b.cast.scale);
        hurts = hurts && a.cast.flushed_share > 0.05 && b.cast.flushed_share < 0.001 && a.product_error > 1.3 * b.product_error;
        worst_flush = std::min(worst_flush, a.cast.flushed_share);
        worst_ratio = std::min(worst_ratio, a.product_error / b.product_error);
    }
    L.check(held, "for exactly the " + std::to_string(kHistory) + " steps after it the delayed scale stays about " + kSpikeText +
                      "x below the current one");
    L.check(hurts, "in those steps delayed scaling flushes over 5 % of each normal tensor (current: under 0.1 %) and its product "
                   "error is over 1.3x current's");
    const int back = kSpikeStep + kHistory + 1;
    L.check(close(at(d, back).cast.scale, at(c, back).cast.scale) && at(d, back).product_error < 1.5 * at(c, back).product_error,
            "step " + std::to_string(back) + ": the spike has left the history; the delayed scale is back within 25 % of the current one");
    L.write_plot("scales", lesson::LinePlot{"Scale of each cast: current vs delayed (history " + std::to_string(kHistory) + ")", "step",
                                            "scale (log)", true, {current_scale, delayed_scale}, {{double(kSpikeStep), "spike", "#888888"}}, {}},
                 "The scale of each step's cast: delayed scaling follows current scaling a step late, misses the spike, then "
                 "stays low while the spike is in its history.");
    L.write_plot("errors", lesson::LinePlot{"Product error of each step (%)", "step", "||y - x W^T|| / ||x W^T|| (%)", true,
                                            {current_error, delayed_error}, {{double(kSpikeStep), "spike", "#888888"}}, {}},
                 "The error of the FP8 product at each step: delayed scaling pays at the spike (saturation) and for the "
                 "steps after it (flushed and subnormal values).");
    L.key_result("a " + kSpikeText + "x spike: delayed scaling saturates " + pct(spike_d.cast.saturated_share) +
                 " of it, then flushes at least " + pct(worst_flush) + " of each of the next " + std::to_string(kHistory) +
                 " tensors (product error at least " + lesson::fmt(worst_ratio) + "x current's)");
}

void step_train(lesson::Lesson& L)
{
    L.step("Digits in f32, bf16, fp8-current and fp8-delayed");
    L.expect("The MLP of lesson 14, " + std::to_string(kEpochs) +
             " epochs, same seed, four ways. In the FP8 modes the three Linear layers run\n"
             "fp8_linear (E4M3 forward, E5M2 gradients, f32 master weights); ReLU, the loss and SGD stay f32.\n"
             "The digits have no spikes: both FP8 recipes end within 2 points of f32, above 90 %.");
    std::vector<train::Mode> modes{train::Mode::f32, train::Mode::bf16, train::Mode::fp8_current, train::Mode::fp8_delayed};
    std::vector<train::TrainResult> results;
    std::printf("   %-12s %9s %11s %10s\n", "mode", "test acc", "train loss", "s/epoch");
    for (train::Mode mode : modes) {
        train::TrainConfig config;  // MLP 64-256-256-10, batch 64, SGD lr 0.05 momentum 0.9, seed 0
        config.mode = mode;
        config.epochs = kEpochs;
        results.push_back(train::run_training(config));
        const train::TrainResult& r = results.back();
        std::vector<double> s;
        for (const train::EpochStats& e : r.epochs) s.push_back(e.seconds);
        std::sort(s.begin(), s.end());
        std::printf("   %-12s %9s %11.4f %10.4f\n", train::mode_name(mode), pct(r.epochs.back().test_accuracy).c_str(),
                    r.epochs.back().train_loss, s[s.size() / 2]);
    }
    const auto acc = [&](std::size_t i) { return results[i].epochs.back().test_accuracy; };
    bool all_learn = true;
    for (std::size_t i = 0; i < results.size(); ++i) all_learn = all_learn && acc(i) > 0.90;
    L.check(all_learn, "every mode ends above 90 % test accuracy");
    L.check(std::abs(acc(2) - acc(0)) <= 0.02 && std::abs(acc(3) - acc(0)) <= 0.02,
            "fp8-current and fp8-delayed end within 2 points of f32");
    L.say("FP8 here is as accurate as f32 but not faster: this CPU has no FP8 arithmetic, so each cast is\n"
          "decoded back to f32 for the product (docs/fp8_training.md). On Hopper or Blackwell the product runs on\n"
          "FP8 Tensor Cores at twice bf16's rate, and delayed scaling saves the extra pass current scaling makes.");
    L.key_result("digits, " + std::to_string(kEpochs) + " epochs: f32 " + pct(acc(0)) + ", bf16 " + pct(acc(1)) + ", fp8-current " +
                 pct(acc(2)) + ", fp8-delayed " + pct(acc(3)));
}

void run(lesson::Lesson& L)
{
    L.say("An FP8 cast multiplies a tensor by a scale, rounds x * scale to E4M3 (saturating at 448), and the\n"
          "product divides the scale out again. One scale per tensor: this lesson asks where it comes from.");
    step_why_a_scale(L);
    step_spike(L);
    step_train(L);
}

const lesson::Registration registered{{18, "per_tensor_scaling", "Per-tensor scaling: current vs delayed",
                                       "one FP8 scale per tensor: from the tensor now, or from the amax history (and a spike)", run}};

}  // namespace
