// Lesson 12: loss scaling by hand. Multiply the loss by S before backward so that small gradients
// land inside f16's range, divide the f32 gradients by S afterwards, and skip the step when an
// inf/NaN shows that S was too large. Everything GradScaler (lesson 13) automates, written out.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "lessons/support/lesson.h"
#include "lessons/support/models.h"

using namespace tinyamp;

namespace {

// The last layer starts small (weights about 3e-3 / sqrt(64)), as some initializations make it,
// and the targets are small numbers too (about 3e-3). The loss is a mean over 256 x 8 outputs.
// Gradients are small at the output, and 1000 times smaller again behind the last layer.
constexpr double kOutputScale = 3e-3;

// A small MLP 32-64-64-8 whose weights are plain f32 tensors (the master weights).
lesson::Mlp make_mlp(Generator& gen)
{
    return lesson::Mlp({32, 64, 64, 8}, gen,
                       {.weight_std = {1 / std::sqrt(32.0), 1 / std::sqrt(64.0), kOutputScale / std::sqrt(64.0)},
                        .bias_std = {0.1, 0.1, 0.1 * kOutputScale},
                        .named = false});
}

struct Setup {
    lesson::Mlp model;
    Tensor x, target;
};

Setup make_setup()
{
    Generator gen(0);
    lesson::Mlp model = make_mlp(gen);
    Tensor x = randn({256, 32}, f32, gen);
    Tensor target = mul(randn({256, 8}, f32, gen), kOutputScale);
    return {model, x, target};
}

// The gradients of the model, one list per parameter (f32: the master gradients).
using Grads = std::vector<std::vector<double>>;

Grads grads_of(const lesson::Mlp& m)
{
    Grads all;
    for (const Tensor& p : m.params()) all.push_back(p.grad().to_vector());
    return all;
}

Grads f32_grads(const Setup& s, optim::Optimizer& opt)
{
    opt.zero_grad();
    mse_loss(s.model(s.x), s.target).backward();
    return grads_of(s.model);
}

// One backward by hand, the way lesson 13's GradScaler does it:
//   1. forward under f16 autocast (the weights stay f32; each matmul casts them to f16),
//   2. backward from loss * S (the f32 loss times S; the gradient then flows back in f16),
//   3. unscale: every f32 gradient times 1/S (the reciprocal taken in f64, then rounded to f32),
//   4. found_inf: did any gradient come back inf or NaN?
struct ScaledBackward {
    bool found_inf = false;
    Grads grads;  // unscaled
};

// `recorded`, when given, receives the trace of steps 1 and 2.
ScaledBackward scaled_backward(const Setup& s, optim::Optimizer& opt, double scale, trace::Trace* recorded = nullptr)
{
    opt.zero_grad();
    {
        std::optional<trace::TraceRecorder> recorder;
        if (recorded) recorder.emplace(*recorded);
        Tensor loss;
        {
            amp::autocast region("cpu", {.dtype = f16});
            loss = mse_loss(s.model(s.x), s.target);
        }
        mul(loss, scale).backward();  // 2.
    }

    ScaledBackward out;
    const float inv_scale = float(1.0 / scale);  // 3.
    NoGradGuard no_grad;
    for (const Tensor& p : s.model.params()) {
        const Tensor& g = p.grad();
        for (double v : g.to_vector())
            if (!std::isfinite(v)) out.found_inf = true;  // 4.
        g.copy_(mul(g, double(inv_scale)));
    }
    out.grads = grads_of(s.model);
    return out;
}

// Of the elements that are non-zero in f32, the share that came out exactly 0.
double underflow_share(const Grads& reference, const Grads& grads)
{
    std::size_t nonzero = 0, lost = 0;
    for (std::size_t t = 0; t < reference.size(); ++t)
        for (std::size_t i = 0; i < reference[t].size(); ++i)
            if (reference[t][i] != 0) {
                ++nonzero;
                if (grads[t][i] == 0) ++lost;
            }
    return nonzero ? double(lost) / double(nonzero) : 0.0;
}

double nonfinite_share(const Grads& grads)
{
    std::size_t bad = 0, all = 0;
    for (const auto& g : grads) {
        all += g.size();
        bad += std::size_t(std::count_if(g.begin(), g.end(), [](double v) { return !std::isfinite(v); }));
    }
    return double(bad) / double(all);
}

// For each parameter ||g - g32|| / ||g32||; the worst of them. (One norm over all parameters would
// hide a layer whose gradients are all lost behind the larger gradients of another.)
double worst_relative_error(const Grads& grads, const Grads& reference)
{
    double worst = 0;
    for (std::size_t t = 0; t < reference.size(); ++t) {
        double diff = 0, norm = 0;
        for (std::size_t i = 0; i < reference[t].size(); ++i) {
            diff += (grads[t][i] - reference[t][i]) * (grads[t][i] - reference[t][i]);
            norm += reference[t][i] * reference[t][i];
        }
        worst = std::max(worst, std::sqrt(diff / norm));
    }
    return worst;
}

// The share of a parameter's gradient elements that are exactly 0.
double zero_share(const std::vector<double>& g)
{
    return double(std::count(g.begin(), g.end(), 0.0)) / double(g.size());
}

std::string pct(double share) { return lesson::fmt(100.0 * share) + " %"; }
std::string pow2(double scale) { return "2^" + lesson::fmt(std::log2(scale)); }

// The f32 gradients of step 1, the reference of every later step, and the largest of them.
struct Reference {
    Grads g32;
    double max_g = 0;
    double below = 0;  // the share of the non-zero ones below 2^-24
};

Reference step_f32_gradients(lesson::Lesson& L, const Setup& s, optim::Optimizer& opt)
{
    L.step("The f32 gradients");
    L.say("An MLP 32-64-64-8 with f32 (master) weights, a batch of 256, an MSE loss. Its outputs and\n"
          "targets are small (about 3e-3): the last layer starts with small weights, as some inits do.\n"
          "The output gradients are small, and those behind the last layer are smaller by its weights.");
    L.expect("Gradients from about 1e-12 to 1e-3, a median near 4e-8: more than half of them below f16's\n"
             "smallest number, 2^-24 = 5.96e-8. The largest times 2^16 still fits below 65504.");
    const Grads g32 = f32_grads(s, opt);
    std::vector<double> magnitudes;
    for (const auto& g : g32)
        for (double v : g)
            if (v != 0) magnitudes.push_back(std::abs(v));
    std::sort(magnitudes.begin(), magnitudes.end());
    const double max_g = magnitudes.back();
    const double f16_tiny = traits(f16).min_subnormal;  // 2^-24 = 5.96e-8
    const double below = double(std::count_if(magnitudes.begin(), magnitudes.end(), [&](double v) { return v < f16_tiny; })) /
                         double(magnitudes.size());
    {
        NoGradGuard no_grad;
        std::printf("   loss %s; %zu non-zero gradient elements; |g| from %s to %s, median %s\n",
                    lesson::fmt(mse_loss(s.model(s.x), s.target).item()).c_str(), magnitudes.size(), lesson::fmt(magnitudes.front()).c_str(),
                    lesson::fmt(max_g).c_str(), lesson::fmt(magnitudes[magnitudes.size() / 2]).c_str());
    }
    std::printf("   below 2^-24: %s\n", pct(below).c_str());
    L.check(below > 0.5, "more than half of the non-zero f32 gradients are below 2^-24");
    L.check(max_g * 65536.0 < traits(f16).max, "the largest |g| times 2^16 still fits in f16 (below 65504)");
    std::vector<double> log2_mags;
    for (double v : magnitudes) log2_mags.push_back(std::log2(v));
    lesson::Histogram hist = lesson::make_histogram(log2_mags, -44, 0, 44);
    hist.title = "f32 gradients of the MLP (all 6 parameters)";
    hist.x_label = "log2 |g|";
    hist.x_marks = {{-24, "f16 smallest 2^-24", "#d62728"}, {-14, "f16 smallest normal 2^-14", "#2a9d5c"}};
    L.write_plot("gradients", hist,
                 "log2 |g| of the f32 gradients. Left of the red line f16 has nothing but 0; loss * 2^16 moves the whole "
                 "histogram 16 to the right.");
    return {g32, max_g, below};
}

// Returns the share of the gradients that f16 flushed to 0.
double step_f16_unscaled(lesson::Lesson& L, const Setup& s, optim::Optimizer& opt, const Reference& ref)
{
    const Grads& g32 = ref.g32;
    L.step("The same backward in f16, without scaling");
    L.expect("Under f16 autocast the gradients flow back through f16 matmuls. The gradients of the\n"
             "activations behind the last layer are all below 2^-24, so they become 0, and with them every\n"
             "gradient of the first two layers: even those whose f32 value f16 could hold.");
    const ScaledBackward plain = scaled_backward(s, opt, 1.0);
    const double underflow_1 = underflow_share(g32, plain.grads);
    const double error_1 = worst_relative_error(plain.grads, g32);
    std::printf("   S = 1: underflow %s; zeros per parameter: w1 %s, w2 %s, w3 %s; worst relative error %s\n", pct(underflow_1).c_str(),
                pct(zero_share(plain.grads[0])).c_str(), pct(zero_share(plain.grads[2])).c_str(), pct(zero_share(plain.grads[4])).c_str(),
                lesson::fmt(error_1).c_str());
    L.check(underflow_1 > ref.below, "f16 loses more gradients than the share below 2^-24");
    L.check(zero_share(plain.grads[0]) == 1.0 && zero_share(plain.grads[2]) == 1.0, "every gradient of w1 and w2 is 0: those layers would not learn");
    L.check(s.model.weight(1).grad().dtype() == f32, "the gradients of the f32 master weights are f32 (autocast's casts bring them back)");
    return underflow_1;
}

// With S = 2^16: the share that still underflows, and the worst relative error of a parameter.
struct ScaledResult {
    double underflow = 0, error = 0;
};

ScaledResult step_scale_2_16(lesson::Lesson& L, const Setup& s, optim::Optimizer& opt, const Grads& g32)
{
    L.step("Scale the loss by S = 2^16, unscale the gradients in f32");
    L.expect("loss * 65536 lifts every gradient 16 powers of two. Almost none underflows now, and after\n"
             "dividing by 65536 (in f32) every parameter's gradient is within 2 % of f32's: what is left is\n"
             "f16's rounding (eps 1e-3), not underflow, so a larger S does not make it smaller.");
    trace::Trace recorded;
    const ScaledBackward scaled = scaled_backward(s, opt, 65536.0, &recorded);
    const double underflow_16 = underflow_share(g32, scaled.grads);
    const double error_16 = worst_relative_error(scaled.grads, g32);
    const double error_24 = worst_relative_error(scaled_backward(s, opt, std::ldexp(1.0, 24)).grads, g32);
    std::printf("   S = 2^16: underflow %s, worst relative error %s, found_inf %s (S = 2^24: error %s)\n", pct(underflow_16).c_str(),
                lesson::fmt(error_16).c_str(), scaled.found_inf ? "true" : "false", lesson::fmt(error_24).c_str());
    L.check(!scaled.found_inf, "S = 2^16 gives no inf/NaN");
    L.check(underflow_16 < 0.001, "with S = 2^16 fewer than 0.1 % of the gradients underflow");
    L.check(error_16 < 0.02, "every parameter's unscaled gradient is within 2 % (relative norm) of f32's");
    L.check(std::abs(error_24 / error_16 - 1) < 0.2, "S = 2^24 is no more accurate than 2^16 (within 20 %): the rest is rounding");
    L.write_graph("scaled_backward", recorded,
                  "One forward under f16 autocast and the backward from loss * 65536: the loss and the mul by S are f32, "
                  "the gradients flow back through f16 matmuls, and the casts bring them to the f32 weights.");
    return {underflow_16, error_16};
}

void step_too_large(lesson::Lesson& L, const Setup& s, optim::Optimizer& opt)
{
    L.step("Too large: S = 2^32 overflows, and the step is skipped");
    L.expect("max|g| * 2^32 is far above 65504, so some f16 gradients become inf (and inf * 0 = NaN).\n"
             "The found-inf check sees it, the step is skipped, and the weights stay exactly as they were.");
    const std::vector<double> before = s.model.snapshot();
    const ScaledBackward too_big = scaled_backward(s, opt, std::ldexp(1.0, 32));
    if (!too_big.found_inf) opt.step();
    std::printf("   S = 2^32: found_inf %s, %s of the gradients are inf/NaN; weights changed: %s\n", too_big.found_inf ? "true" : "false",
                pct(nonfinite_share(too_big.grads)).c_str(), s.model.snapshot() == before ? "no" : "yes");
    L.check(too_big.found_inf, "S = 2^32 gives inf/NaN gradients");
    L.check(s.model.snapshot() == before, "the skipped step leaves every weight bit for bit as it was");
    const ScaledBackward good = scaled_backward(s, opt, 65536.0);
    if (!good.found_inf) opt.step();
    L.check(s.model.snapshot() != before, "with S = 2^16 the step is taken and the weights move");
    {  // back to the weights of steps 1-3, for the sweep
        NoGradGuard no_grad;
        std::size_t at = 0;
        for (const Tensor& p : s.model.params()) {
            const std::vector<double> v(before.begin() + std::ptrdiff_t(at), before.begin() + std::ptrdiff_t(at + std::size_t(p.numel())));
            p.copy_(tensor(v, p.shape()));
            at += std::size_t(p.numel());
        }
    }
}

// The smallest S of the sweep that loses under 0.1 %, and the first that overflows.
struct ScaleWindow {
    double first_clean = 0, first_overflow = 0;
};

ScaleWindow step_pick_scale(lesson::Lesson& L, const Setup& s, optim::Optimizer& opt, const Reference& ref)
{
    const Grads& g32 = ref.g32;
    L.step("Pick S: sweep it from 2^0 to 2^40");
    L.expect("The underflow share falls as S grows and is near 0 long before the overflow starts: a wide\n"
             "window of good S. NVIDIA's rule, the largest power of two with S * max|g| <= 65504, lands in it.");
    lesson::Series under{"underflow to 0 (%)", {}, {}, "#3c78dc", true};
    lesson::Series over{"inf/NaN (%)", {}, {}, "#d62728", true};
    double first_overflow = 0, first_clean = 0;
    for (int k = 0; k <= 40; k += 2) {
        const double scale = std::ldexp(1.0, k);
        const ScaledBackward r = scaled_backward(s, opt, scale);
        const double u = underflow_share(g32, r.grads);
        if (r.found_inf) {
            if (first_overflow == 0) first_overflow = scale;
            over.x.push_back(k);
            over.y.push_back(100.0 * nonfinite_share(r.grads));
            std::printf("   S = 2^%-2d  inf/NaN %s: skip the step\n", k, pct(nonfinite_share(r.grads)).c_str());
        } else {
            if (first_clean == 0 && u < 0.001) first_clean = scale;
            under.x.push_back(k);
            under.y.push_back(100.0 * u);
            std::printf("   S = 2^%-2d  underflow %s\n", k, pct(u).c_str());
        }
    }
    const double rule = std::ldexp(1.0, int(std::floor(std::log2(traits(f16).max / ref.max_g))));
    const ScaledBackward at_rule = scaled_backward(s, opt, rule);
    std::printf("   underflow < 0.1 %% from S = %s; overflow from S = %s; the rule picks S = %s (underflow %s, found_inf %s)\n",
                pow2(first_clean).c_str(), pow2(first_overflow).c_str(), pow2(rule).c_str(), pct(underflow_share(g32, at_rule.grads)).c_str(),
                at_rule.found_inf ? "true" : "false");
    L.check(first_clean > 0 && first_overflow > 0, "the sweep finds both a clean S and an overflowing S");
    L.check(first_overflow >= 1024 * first_clean, "the window of good S spans at least 10 powers of two");
    L.check(!at_rule.found_inf && underflow_share(g32, at_rule.grads) < 0.001, "the rule's S neither overflows nor underflows");
    L.write_plot("underflow_vs_scale",
                 lesson::LinePlot{"Gradients lost in f16, by loss scale S",
                                  "log2 S",
                                  "share of gradient elements (%)",
                                  false,
                                  {under, over},
                                  {{std::log2(first_overflow), "overflow from here", "#d62728"}, {16, "2^16 (GradScaler's default)", "#2a9d5c"}},
                                  {}},
                 "Blue: the share of gradients f16 flushed to 0, falling as S grows. Red: once S * |g| passes 65504 somewhere, "
                 "gradients are inf/NaN and the step must be skipped.");
    return {first_clean, first_overflow};

}

void run(lesson::Lesson& L)
{
    const Setup s = make_setup();
    optim::SGD opt(s.model.params(), {.lr = 0.1});
    const Reference ref = step_f32_gradients(L, s, opt);
    const double underflow_1 = step_f16_unscaled(L, s, opt, ref);
    const ScaledResult at_2_16 = step_scale_2_16(L, s, opt, ref.g32);
    step_too_large(L, s, opt);
    const ScaleWindow window = step_pick_scale(L, s, opt, ref);
    L.key_result("f16 backward without scaling zeroes " + pct(underflow_1) + " of the gradients (all of w1, w2); loss * 2^16: " +
                 pct(at_2_16.underflow) + ", every parameter within " + pct(at_2_16.error) + " of f32");
    L.key_result("good S from " + pow2(window.first_clean) + " to " + pow2(window.first_overflow / 4) + "; from " +
                 pow2(window.first_overflow) + " gradients overflow and found_inf skips the step");
}

const lesson::Registration registered{{12, "loss_scaling_by_hand", "Loss scaling by hand",
                                       "loss scaling: multiply by S, unscale in f32, skip on inf", run}};

}  // namespace
