// Lesson 17: the FP8 formats, E4M3 and E5M2. Eight bits leave room for one trade only: E4M3 keeps
// a third mantissa bit (half the rounding error), E5M2 a fifth exponent bit (a range 2^14 times
// wider). We walk every code of both, measure their rounding error, and cast the real activations
// and gradients of a digits MLP to each, without any scale: the activations fit E4M3 and want its
// precision; the gradients spread over more binades and mostly flush to zero in both (lesson 18
// scales them). Last, saturation: what a value past the largest number becomes, and why a trainer
// wants the clamp.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "lessons/support/lesson.h"
#include "lessons/support/models.h"

using namespace tinyamp;

namespace {

constexpr int kEpochs = 5;
constexpr DType kFp8[] = {f8e4m3fn, f8e5m2};

std::string pct(double share) { return lesson::fmt(100 * share) + " %"; }

// The width of a format's range in binades: log2(largest / smallest positive number).
double range_binades(DType d) { return std::log2(traits(d).max / traits(d).min_subnormal); }

// What the 256 codes of an FP8 format hold, found by decoding every one of them.
struct CodeCensus {
    double largest = 0;
    int finite = 0, infs = 0, nans = 0;
};

CodeCensus census(const minifloat::Format& f)
{
    CodeCensus c;
    for (int code = 0; code < 256; ++code) {
        const double v = minifloat::decode(f, static_cast<std::uint8_t>(code));
        if (std::isnan(v)) ++c.nans;
        else if (std::isinf(v)) ++c.infs;
        else {
            ++c.finite;
            c.largest = std::max(c.largest, v);
        }
    }
    return c;
}

void step_formats(lesson::Lesson& L)
{
    L.step("Two ways to spend 8 bits");
    L.expect("After the sign, 7 bits are left. E4M3 gives 4 to the exponent and 3 to the mantissa, E5M2 5 and 2.\n"
             "Decoding all 256 codes: E4M3's largest number is 448 (0 1111 110: its top exponent still holds\n"
             "numbers, only 1111 111 is NaN, and there is no inf); E5M2's is 57344 (0 11110 11: its top exponent\n"
             "is inf and NaN, as in f16). E5M2 spans 2^31.8 from its smallest number to its largest, E4M3 2^17.8.");
    std::printf("   %-9s %8s %8s %-10s %-12s %-12s %-8s %s\n", "dtype", "exp bits", "mantissa", "max", "min normal", "min subnormal",
                "eps", "range (binades)");
    for (DType d : {f16, bf16, f8e4m3fn, f8e5m2}) {
        const DTypeTraits& t = traits(d);
        std::printf("   %-9s %8d %8d %-10.6g %-12.6g %-12.6g %-8.4g %.4g\n", t.name, t.exponent_bits, t.mantissa_bits, t.max, t.min_normal,
                    t.min_subnormal, t.eps, range_binades(d));
    }
    const CodeCensus e4 = census(minifloat::f8e4m3fn), e5 = census(minifloat::f8e5m2);
    for (const auto& [d, c] : {std::pair{f8e4m3fn, e4}, std::pair{f8e5m2, e5}})
        std::printf("   %-8s 256 codes: %d finite (largest %.6g = %s), %d inf, %d NaN\n", dtype_name(d), c.finite, c.largest,
                    bit_pattern(c.largest, d).c_str(), c.infs, c.nans);
    L.check(e4.largest == 448 && e4.largest == traits(f8e4m3fn).max && bit_pattern(448, f8e4m3fn) == "0 1111 110",
            "E4M3's largest code decodes to 448 = 0 1111 110, its traits' max");
    L.check(e4.infs == 0 && e4.nans == 2, "E4M3 has no inf and 2 NaN codes (+-1111 111)");
    L.check(e5.largest == 57344 && e5.largest == traits(f8e5m2).max && bit_pattern(57344, f8e5m2) == "0 11110 11",
            "E5M2's largest code decodes to 57344 = 0 11110 11, its traits' max");
    L.check(e5.infs == 2 && e5.nans == 6, "E5M2 has +-inf and 6 NaN codes, as the top byte of an f16");
    L.check(std::abs(range_binades(f8e4m3fn) - 17.8) < 0.05 && std::abs(range_binades(f8e5m2) - 31.8) < 0.05,
            "E4M3 spans 2^17.8 (448 / 2^-9), E5M2 2^31.8 (57344 / 2^-16)");
}

void step_precision(lesson::Lesson& L)
{
    L.step("Precision: what the third mantissa bit buys");
    L.expect("Between 2^k and 2^(k+1), E4M3 has 8 numbers and E5M2 4. Rounding to the nearest is then off by at\n"
             "most half a gap, u = eps / 2 of 2^k: the relative error stays below 2^-4 = 6.25 % in E4M3 and 2^-3 =\n"
             "12.5 % in E5M2. The worst case is the value halfway between 2^k and the next number, 2^k * (1 + u):\n"
             "it rounds (to even) down to 2^k, off by u / (1 + u) of itself, 5.88 % and 11.1 %. We round 4096 values\n"
             "spread evenly on the log scale over 2^-6 .. 2^8, where both formats have normal numbers: the worst\n"
             "errors come within 1 % of those, and E5M2's average error is about twice E4M3's.");
    for (double v : {1.1, 0.3, 100.0})
        std::printf("   %-5s -> E4M3 %-7s (%s)   E5M2 %-7s (%s)\n", lesson::fmt(v).c_str(), lesson::fmt(scalar_tensor(v, f8e4m3fn).item()).c_str(),
                    bit_pattern(v, f8e4m3fn).c_str(), lesson::fmt(scalar_tensor(v, f8e5m2).item()).c_str(), bit_pattern(v, f8e5m2).c_str());
    std::vector<double> grid;
    for (int i = 0; i < 4096; ++i) grid.push_back(std::exp2(-6.0 + 14.0 * i / 4096));
    const Tensor x = tensor(grid, {4096});
    double worst[2] = {0, 0}, mean[2] = {0, 0};
    for (int k = 0; k < 2; ++k) {
        const std::vector<double> back = x.to(kFp8[k]).to(f32).to_vector();
        for (std::size_t i = 0; i < grid.size(); ++i) {
            const double rel = std::abs(back[i] - grid[i]) / grid[i];
            worst[k] = std::max(worst[k], rel);
            mean[k] += rel / double(grid.size());
        }
        const double u = traits(kFp8[k]).eps / 2;
        std::printf("   %-8s relative error: worst %-9s mean %-9s (u = eps / 2 = %s, u / (1 + u) = %s)\n", dtype_name(kFp8[k]),
                    pct(worst[k]).c_str(), pct(mean[k]).c_str(), pct(u).c_str(), pct(u / (1 + u)).c_str());
    }
    const auto worst_is_bound = [&](int k) {
        const double u = traits(kFp8[k]).eps / 2;
        return worst[k] < u && worst[k] > 0.99 * u / (1 + u);
    };
    L.check(worst_is_bound(0), "E4M3's worst relative error is u / (1 + u) = 5.88 % (to 1 %), below u = 6.25 %");
    L.check(worst_is_bound(1), "E5M2's worst relative error is u / (1 + u) = 11.1 % (to 1 %), below u = 12.5 %");
    L.check(mean[1] / mean[0] > 1.7 && mean[1] / mean[0] < 2.3, "E5M2's average error is about twice E4M3's");
}

// The tensors one training step of the digits MLP casts to FP8: the inputs of its three linear
// layers (forward, with the weights) and the gradients of their outputs (backward).
struct Probe {
    std::vector<std::string> names;
    std::vector<Tensor> tensors;
    std::size_t gradients_from = 0;  // tensors[0 .. gradients_from) are forward, the rest backward
    lesson::Mlp model;
    Tensor labels;
};

Probe step_train(lesson::Lesson& L)
{
    L.step("A digits MLP, trained in f32, and the tensors FP8 training would cast");
    L.expect("An MLP 64-256-256-10, as in lesson 11, learns the 8x8 digits for " + std::to_string(kEpochs) +
             " epochs in plain f32 (the loss falls).\n"
             "Then, on one batch of 256, we keep what an FP8 linear layer casts: in forward its input X and its\n"
             "weight W (to E4M3 in the usual recipe), in backward the gradient of its output dY (to E5M2).");
    data::Dataset digits = data::load_digits(data::data_path("digits.csv.gz"));
    digits.features = div(digits.features, 16.0);
    const auto [train_set, test_set] = data::train_test_split(digits, 0.2, 0);
    Generator gen(0);
    lesson::Mlp model({64, 256, 256, 10}, gen);
    optim::SGD optimizer(model.params(), optim::SGDOptions{.lr = 0.05, .momentum = 0.9});
    data::DataLoader loader(train_set, 64, true, false, 0);
    double first = 0, last = 0;
    for (int epoch = 1; epoch <= kEpochs; ++epoch)
        (epoch == 1 ? first : last) = lesson::train_one_epoch(model, optimizer, loader);
    std::printf("   training loss: epoch 1 %s, epoch %d %s\n", lesson::fmt(first).c_str(), kEpochs, lesson::fmt(last).c_str());
    L.check(last < first / 3, "the training loss fell by more than 3x");

    // One batch, layer by layer. Each linear output z is cut from the graph as a leaf of its own, so
    // that backward leaves dL/dz in its .grad; backward then goes on from z with that gradient.
    const data::Batch probe = data::DataLoader(train_set, 256, false).batch(0);
    Probe p{{}, {}, 0, model, probe.labels};
    Tensor a = probe.features;
    std::vector<Tensor> outputs, cut;
    for (std::size_t layer = 1; layer <= model.layers(); ++layer) {
        p.names.push_back("X" + std::to_string(layer));
        p.tensors.push_back(a.detach());
        outputs.push_back(linear(a, model.weight(layer), model.bias(layer)));
        cut.push_back(outputs.back().detach().requires_grad_());
        a = layer < model.layers() ? relu(cut.back()) : cut.back();
    }
    for (std::size_t layer = 1; layer <= model.layers(); ++layer) {
        p.names.push_back("W" + std::to_string(layer));
        p.tensors.push_back(model.weight(layer).detach());
    }
    optimizer.zero_grad();
    cross_entropy(a, probe.labels).backward();
    for (std::size_t i = outputs.size(); i-- > 1;) outputs[i].backward(cut[i].grad());
    p.gradients_from = p.tensors.size();
    for (std::size_t layer = model.layers(); layer >= 1; --layer) {
        p.names.push_back("dY" + std::to_string(layer));
        p.tensors.push_back(cut[layer - 1].grad().detach());
    }
    return p;
}

// Where one tensor's values sit, against one FP8 format, with no scale.
struct Fit {
    double min_abs = 0, max_abs = 0, spread = 0;  // over the finite nonzero values; spread = log2(max/min)
    double flushed[2] = {0, 0};                   // share of the nonzero values at or below half the smallest number
    double beyond[2] = {0, 0};                    // share past the largest number
    double error[2] = {0, 0};                     // relative_difference of the cast, against the f32 values
};

Fit fit_of(const Tensor& t)
{
    Fit f;
    const trace::ValueStats st = trace::compute_stats(t);
    f.min_abs = st.min_abs;
    f.max_abs = st.max_abs;
    f.spread = std::log2(st.max_abs / st.min_abs);
    const std::vector<double> v = t.to_vector();
    for (int k = 0; k < 2; ++k) {
        const DTypeTraits& tr = traits(kFp8[k]);
        double nonzero = 0, low = 0, high = 0;
        for (double x : v) {
            if (x == 0) continue;
            ++nonzero;
            low += std::abs(x) <= tr.min_subnormal / 2 ? 1 : 0;  // half-way rounds to even: to 0
            high += std::abs(x) > tr.max ? 1 : 0;
        }
        f.flushed[k] = low / nonzero;
        f.beyond[k] = high / nonzero;
        f.error[k] = lesson::relative_difference(t.to(kFp8[k]).to(f32), t);
    }
    return f;
}

struct Fits {
    std::vector<Fit> fits;
    double backward_spread = 0;  // the widest spread of the gradients
    double forward_flush_e4m3 = 0, backward_flush_e4m3 = 0, backward_flush_e5m2 = 0;  // the worst share of each
};

lesson::Histogram log2_histogram(const std::vector<Tensor>& tensors, const std::string& title)
{
    std::vector<double> logs;
    for (const Tensor& t : tensors)
        for (double v : t.to_vector())
            if (v != 0 && std::isfinite(v)) logs.push_back(std::log2(std::abs(v)));
    lesson::Histogram h = lesson::make_histogram(logs, -40, 20, 60);
    h.title = title;
    h.x_label = "log2 |x|  (values below -40 are counted in the first bin)";
    h.x_marks = {{std::log2(traits(f8e4m3fn).min_subnormal), "E4M3 smallest 2^-9", "#c0392b"},
                 {std::log2(traits(f8e4m3fn).max), "E4M3 max 448", "#c0392b"},
                 {std::log2(traits(f8e5m2).min_subnormal), "E5M2 smallest 2^-16", "#6c3483"},
                 {std::log2(traits(f8e5m2).max), "E5M2 max 57344", "#6c3483"}};
    return h;
}

Fits step_range(lesson::Lesson& L, const Probe& p)
{
    L.step("Range: cast them with no scale");
    L.expect("The forward tensors are of order 1: the largest input is 1, the largest weight below 1. From their\n"
             "smallest value to their largest they span about as many binades as E4M3 holds (17.8), and only a few\n"
             "tiny values (a weight near 0, a relu output just above 0) fall below 2^-10: cast as they are, at most\n"
             "2 % of their values become 0 in E4M3, none passes 448, and E4M3's error is about half E5M2's.\n"
             "The gradients dY are means over 256 examples: all far smaller, and spread over more binades than any\n"
             "forward tensor. Cast as they are, nearly all become 0 in E4M3, and most in E5M2 too. (An exact 0, as\n"
             "relu and well-fitted examples give, is not counted: the shares are of the nonzero values.)");
    std::printf("   %-4s %-10s %-10s %-8s | %-12s %-10s %-9s | %-12s %-10s %s\n", "", "min |x|", "max |x|", "binades", "E4M3: to 0",
                "past max", "error", "E5M2: to 0", "past max", "error");
    Fits out;
    for (std::size_t i = 0; i < p.tensors.size(); ++i) {
        const Fit f = fit_of(p.tensors[i]);
        std::printf("   %-4s %-10s %-10s %-8s | %-12s %-10s %-9s | %-12s %-10s %s\n", p.names[i].c_str(), lesson::fmt(f.min_abs).c_str(),
                    lesson::fmt(f.max_abs).c_str(), lesson::fmt(f.spread).c_str(), pct(f.flushed[0]).c_str(), pct(f.beyond[0]).c_str(),
                    pct(f.error[0]).c_str(), pct(f.flushed[1]).c_str(), pct(f.beyond[1]).c_str(), pct(f.error[1]).c_str());
        const bool forward = i < p.gradients_from;
        if (forward) out.forward_flush_e4m3 = std::max(out.forward_flush_e4m3, f.flushed[0]);
        else {
            out.backward_spread = std::max(out.backward_spread, f.spread);
            out.backward_flush_e4m3 = std::max(out.backward_flush_e4m3, f.flushed[0]);
            out.backward_flush_e5m2 = std::max(out.backward_flush_e5m2, f.flushed[1]);
        }
        out.fits.push_back(f);
    }
    bool none_beyond = true, e4m3_sharper = true, dy_smaller = true, wider = true;
    double backward_min_flush_e4m3 = 1, backward_min_flush_e5m2 = 1;
    for (std::size_t i = 0; i < out.fits.size(); ++i) {
        none_beyond = none_beyond && out.fits[i].beyond[0] == 0 && out.fits[i].beyond[1] == 0;
        if (i < p.gradients_from) {
            e4m3_sharper = e4m3_sharper && out.fits[i].error[0] < 0.7 * out.fits[i].error[1];
            for (std::size_t j = p.gradients_from; j < out.fits.size(); ++j) {
                dy_smaller = dy_smaller && out.fits[i].max_abs > 50 * out.fits[j].max_abs;
                wider = wider && out.fits[j].spread > out.fits[i].spread + 5;
            }
        } else {
            backward_min_flush_e4m3 = std::min(backward_min_flush_e4m3, out.fits[i].flushed[0]);
            backward_min_flush_e5m2 = std::min(backward_min_flush_e5m2, out.fits[i].flushed[1]);
        }
    }
    L.check(out.forward_flush_e4m3 < 0.02, "cast to E4M3 as they are, under 2 % of any forward tensor's nonzero values become 0");
    L.check(none_beyond, "nothing passes either format's largest number: overflow is not the problem here");
    L.check(e4m3_sharper, "in every forward tensor, E4M3's error is well under E5M2's (less than 0.7x)");
    L.check(dy_smaller, "every gradient's largest value is over 50x below every forward tensor's");
    L.check(wider && out.backward_spread > range_binades(f8e4m3fn),
            "every gradient spreads over at least 5 binades more than any forward tensor, and over more than E4M3 holds");
    L.check(backward_min_flush_e4m3 > 0.95, "without a scale, over 95 % of every gradient's nonzero values become 0 in E4M3");
    L.check(backward_min_flush_e5m2 > 0.5, "and over half of them in E5M2 too, which reaches 2^-16");
    const std::vector<Tensor> forward(p.tensors.begin(), p.tensors.begin() + std::ptrdiff_t(p.gradients_from));
    const std::vector<Tensor> backward(p.tensors.begin() + std::ptrdiff_t(p.gradients_from), p.tensors.end());
    L.write_plot("log2_forward", log2_histogram(forward, "log2 |x| of the forward tensors X1..X3, W1..W3"),
                 "The inputs and weights of the three linear layers: between E4M3's limits (red), with room to spare.");
    L.write_plot("log2_backward", log2_histogram(backward, "log2 |dY| of the output gradients dY1..dY3"),
                 "The output gradients: far below the forward tensors, many below E4M3's smallest number (red) and "
                 "E5M2's (purple), and wider than E4M3's range.");
    return out;
}

// The window: if a scale put the tensor's largest value at the format's max, the share of its
// nonzero values that would still fall below half the format's smallest number.
double below_window(const Tensor& t, DType d)
{
    const double amax = trace::compute_stats(t).max_abs;
    const double floor = amax / std::exp2(range_binades(d)) / 2;
    double nonzero = 0, out = 0;
    for (double x : t.to_vector())
        if (x != 0) {
            ++nonzero;
            out += std::abs(x) <= floor ? 1 : 0;
        }
    return out / nonzero;
}

void step_roles(lesson::Lesson& L, const Probe& p)
{
    L.step("Why E4M3 forward and E5M2 backward");
    L.expect("A scale (lesson 18) can slide a tensor up or down so that its largest value meets the format's max;\n"
             "it cannot make the format's window wider. So the question is whether the tensor's spread fits the\n"
             "window: E4M3's 17.8 binades or E5M2's 31.8. Forward tensors fit E4M3, which then gives them half the\n"
             "rounding error. Gradients, placed at the top of E4M3's window, still leave a tail below it; E5M2's\n"
             "window is 14 binades deeper and leaves far fewer out (under 1 % of any gradient here).");
    std::printf("   %-4s %-26s %s\n", "", "below E4M3's window", "below E5M2's window");
    double forward_worst = 0, backward_e4 = 0, backward_e5 = 0;
    for (std::size_t i = 0; i < p.tensors.size(); ++i) {
        const double e4 = below_window(p.tensors[i], f8e4m3fn), e5 = below_window(p.tensors[i], f8e5m2);
        std::printf("   %-4s %-26s %s\n", p.names[i].c_str(), pct(e4).c_str(), pct(e5).c_str());
        if (i < p.gradients_from) forward_worst = std::max(forward_worst, e4);
        else {
            backward_e4 = std::max(backward_e4, e4);
            backward_e5 = std::max(backward_e5, e5);
        }
    }
    L.check(forward_worst == 0, "placed at the top of E4M3's window, no forward value falls below it");
    L.check(backward_e4 > 0, "placed the same way, some gradient values still fall below E4M3's window");
    L.check(backward_e5 < backward_e4 && backward_e5 < 0.01, "E5M2's deeper window leaves fewer of them out: under 1 % of any gradient");
    L.say("Hence Transformer Engine's default recipe, HYBRID (Fp8Format in tinyamp/values/scaling_recipe.h):\n"
          "E4M3 for the forward pass, E5M2 for the gradients.");
}

// An FP8 cast of every element, with the given overflow rule (what .to() does for E4M3 is saturate).
Tensor cast_with(const Tensor& t, const minifloat::Format& f, minifloat::Overflow overflow)
{
    std::vector<double> out;
    for (double x : t.to_vector()) out.push_back(minifloat::decode(f, minifloat::encode(f, static_cast<float>(x), overflow)));
    return tensor(out, t.shape());
}

void step_saturation(lesson::Lesson& L, const Probe& p)
{
    L.step("Saturation: what a value past the largest number becomes");
    L.expect("A scale is chosen from the tensor's largest value, often from earlier steps' (delayed scaling), so now\n"
             "and then a value lands a little past the max. x.to(f8e4m3fn) saturates: 500 becomes 448, as PyTorch's\n"
             "cast and Transformer Engine's do. The non-saturating cast (IEEE's rule, ml_dtypes') makes it NaN in\n"
             "E4M3, which has no inf. E5M2's .to() does not saturate: 61440 becomes inf. One NaN in a layer's\n"
             "input makes its whole output row NaN, and then the loss: the step is lost. Clamped, the loss barely moves.");
    const double sat = scalar_tensor(500.0, f8e4m3fn).item();
    const double nonsat = minifloat::decode(minifloat::f8e4m3fn, minifloat::encode(minifloat::f8e4m3fn, 500.0f, minifloat::Overflow::non_saturating));
    const double e5 = scalar_tensor(61440.0, f8e5m2).item();
    const double e5_sat = minifloat::decode(minifloat::f8e5m2, minifloat::encode(minifloat::f8e5m2, 61440.0f, minifloat::Overflow::saturate));
    std::printf("   500   -> E4M3: .to() %s (%s), encode(non_saturating) %s\n", lesson::fmt(sat).c_str(), bit_pattern(500, f8e4m3fn).c_str(),
                lesson::fmt(nonsat).c_str());
    std::printf("   61440 -> E5M2: .to() %g, encode(saturate) %g\n", e5, e5_sat);
    L.check(sat == 448 && std::isnan(nonsat), "500 becomes 448 with .to(f8e4m3fn), NaN with the non-saturating cast");
    L.check(std::isinf(e5) && e5_sat == 57344, "61440 becomes inf with .to(f8e5m2), 57344 with encode(saturate)");

    // The last layer's input X3, with one value pushed past 448 as a stale scale might leave it.
    const std::size_t last = p.model.layers();
    const Tensor& x3 = p.tensors[last - 1];
    std::vector<double> values = x3.to_vector();
    const auto largest = std::max_element(values.begin(), values.end());
    *largest = 500.0;
    const Tensor outlier = tensor(values, x3.shape());
    const auto loss_of = [&](const Tensor& x) {
        NoGradGuard no_grad;
        const Tensor logits = linear(x, p.model.weight(last), p.model.bias(last));
        return std::pair{trace::compute_stats(logits).nans * double(logits.numel()), cross_entropy(logits, p.labels).item()};
    };
    const auto [nan_f32, loss_f32] = loss_of(outlier);
    const auto [nan_clamped, loss_clamped] = loss_of(outlier.to(f8e4m3fn).to(f32));
    const auto [nan_nonsat, loss_nonsat] = loss_of(cast_with(outlier, minifloat::f8e4m3fn, minifloat::Overflow::non_saturating));
    std::printf("   X3 with one value set to 500, through the last layer: loss in f32 %s; E4M3 saturating: loss %s, %g NaN logits;\n"
                "   E4M3 non-saturating: loss %s, %g NaN logits (of %lld)\n",
                lesson::fmt(loss_f32).c_str(), lesson::fmt(loss_clamped).c_str(), nan_clamped, lesson::fmt(loss_nonsat).c_str(), nan_nonsat,
                static_cast<long long>(x3.shape()[0] * 10));
    L.check(std::isnan(loss_nonsat) && nan_nonsat == 10, "non-saturating: one NaN input spoils its row's 10 logits, and the loss is NaN");
    L.check(std::isfinite(loss_clamped) && nan_clamped == 0 && std::abs(loss_clamped - loss_f32) < 0.02 * std::abs(loss_f32),
            "saturating: no NaN, and the loss is within 2 % of f32's");
}

void run(lesson::Lesson& L)
{
    L.say("f16 and bf16 halve f32; FP8 halves them again. At 8 bits there is no format with both range and\n"
          "precision, so FP8 training uses two: E4M3 and E5M2 (OCP's 8-bit formats, torch.float8_e4m3fn and\n"
          "torch.float8_e5m2). This lesson looks at what each keeps, and what each loses.");
    step_formats(L);
    step_precision(L);
    const Probe probe = step_train(L);
    const Fits fits = step_range(L, probe);
    step_roles(L, probe);
    step_saturation(L, probe);
    L.step("Summary");
    L.say("E4M3 for what the forward pass casts (narrow spread, wants precision), E5M2 for gradients (wide spread).\n"
          "But cast as they are, the gradients mostly vanish in either format: their values sit far below where\n"
          "the formats' windows are. Lesson 18 multiplies each tensor by a scale first, so that its largest value\n"
          "lands near the format's max.");
    L.key_result("E4M3: 2^" + lesson::fmt(range_binades(f8e4m3fn)) + " of range, error <= 6.25 %; E5M2: 2^" +
                 lesson::fmt(range_binades(f8e5m2)) + ", error <= 12.5 %");
    L.key_result("digits MLP, no scale: forward tensors lose at most " + pct(fits.forward_flush_e4m3) +
                 " to 0 in E4M3; gradients up to " + pct(fits.backward_flush_e4m3) + " in E4M3, " + pct(fits.backward_flush_e5m2) +
                 " in E5M2");
    L.key_result("500 -> E4M3: 448 saturating (.to()), NaN non-saturating: one NaN makes the loss NaN");
}

const lesson::Registration registered{{17, "fp8_formats", "The FP8 formats: E4M3 and E5M2",
                                       "range against precision in 8 bits: E4M3 forward, E5M2 backward, saturation", run}};

}  // namespace
