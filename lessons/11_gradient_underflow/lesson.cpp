// Lesson 11: gradient underflow. As a model fits, its gradients shrink; in f16 the smallest ones
// fall below 2^-24 and become exactly 0. We train an MLP on the digits in f32, look at where its
// gradients sit on the log2 scale, and count what f16 (and bf16) autocast loses without a scaler.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "lessons/support/lesson.h"
#include "lessons/support/models.h"
#include "training/models.h"

using namespace tinyamp;

namespace {

constexpr int kEpochs = 20;

// Every parameter gradient of the model, flattened into one f32 tensor.
Tensor all_grads(nn::Module& model)
{
    std::vector<Tensor> flat;
    for (const Tensor& p : model.parameters()) flat.push_back(p.grad().reshape({-1}));
    return cat(flat);
}

// The gradients of the mean cross-entropy on one batch, with autocast in `dtype` (f32: none) and
// the loss multiplied by `scale` before backward (and the gradients divided by it after, in f64).
Tensor probe_grads(nn::Sequential& model, const data::Batch& batch, DType dtype, double scale = 1.0)
{
    model.zero_grad();
    Tensor loss;
    {
        std::optional<amp::autocast> region;
        if (dtype != f32) region.emplace("cpu", amp::AutocastOptions{.dtype = dtype});
        loss = cross_entropy(model(batch.features), batch.labels);
    }
    mul(loss, scale).backward();
    const Tensor g = all_grads(model);
    model.zero_grad();
    return scale == 1.0 ? g : div(g.to(f64), scale);
}

// Of the elements that are nonzero in `reference`, the share that are exactly 0 in `other`.
double lost_share(const Tensor& reference, const Tensor& other)
{
    const std::vector<double> r = reference.to_vector(), o = other.to_vector();
    double nonzero = 0, lost = 0;
    for (std::size_t i = 0; i < r.size(); ++i)
        if (r[i] != 0) {
            ++nonzero;
            lost += o[i] == 0 ? 1 : 0;
        }
    return nonzero == 0 ? 0 : lost / nonzero;
}

// log2|g| of the finite nonzero elements.
std::vector<double> log2_magnitudes(const Tensor& g)
{
    std::vector<double> out;
    for (double v : g.to_vector())
        if (v != 0 && std::isfinite(v)) out.push_back(std::log2(std::abs(v)));
    return out;
}

std::string pct(double share) { return lesson::fmt(100 * share) + " %"; }

// The MLP step 1 trained, and the fixed batch whose gradients every step looks at.
struct Trained {
    std::shared_ptr<nn::Sequential> model;
    data::Batch probe;
};

Trained step_train_f32(lesson::Lesson& L)
{
    L.step("Train in f32 and watch the gradients shrink");
    L.expect("An MLP 64-256-256-10 on the 8x8 digits, plain f32 SGD. After each epoch we take the gradients of one\n"
             "fixed batch of 256 images. The loss falls, and the share of gradient values that f16 would round\n"
             "to 0 grows from almost none to a few percent. bf16 would round none of them to 0.");
    data::Dataset digits = data::load_digits(data::data_path("digits.csv.gz"));
    digits.features = div(digits.features, 16.0);
    const auto [train_set, test_set] = data::train_test_split(digits, 0.2, 0);
    manual_seed(0);
    const std::shared_ptr<nn::Sequential> model = train::make_model(train::ModelKind::mlp);
    optim::SGD optimizer(model->parameters(), optim::SGDOptions{.lr = 0.05, .momentum = 0.9});
    data::DataLoader loader(train_set, 64, true, false, 0);
    const data::Batch probe = data::DataLoader(train_set, 256, false).batch(0);

    lesson::Series f16_share{"f16 would round to 0", {}, {}, "#2a9d5c", true};
    lesson::Series bf16_share{"bf16 would round to 0", {}, {}, "#e8862a", true};
    double first_loss = 0, last_loss = 0;
    for (int epoch = 1; epoch <= kEpochs; ++epoch) {
        const double loss = lesson::train_one_epoch(*model, optimizer, loader);
        const trace::ValueStats st = trace::compute_stats(probe_grads(*model, probe, f32));
        f16_share.x.push_back(epoch);
        f16_share.y.push_back(100 * st.f16_underflow);
        bf16_share.x.push_back(epoch);
        bf16_share.y.push_back(100 * st.bf16_underflow);
        if (epoch == 1) first_loss = loss;
        last_loss = loss;
        if (epoch == 1 || epoch % 5 == 0)
            std::printf("   epoch %2d  loss %-8s  f32 gradients: largest %-9s  f16 would round %s to 0, bf16 %s\n", epoch,
                        lesson::fmt(loss).c_str(), lesson::fmt(st.max_abs).c_str(), pct(st.f16_underflow).c_str(),
                        pct(st.bf16_underflow).c_str());
    }
    L.check(last_loss < first_loss / 5, "the training loss fell by more than 5x");
    L.check(f16_share.y.back() > 5 * f16_share.y.front(), "the share f16 would lose grew more than 5x as the model fitted");
    L.check(*std::max_element(bf16_share.y.begin(), bf16_share.y.end()) == 0.0, "bf16 would round none of them to 0, in any epoch");
    L.write_plot("underflow_by_epoch",
                 lesson::LinePlot{"Gradient values f16 would round to 0, by epoch", "epoch", "share of nonzero gradient values (%)", false,
                                  {f16_share, bf16_share}, {}, {}},
                 "As the MLP fits the digits, its gradients shrink and a growing share of them is below f16's smallest number.");
    return {model, probe};
}

// The f32 gradients of the probe batch, and their statistics.
struct F32Grads {
    Tensor g32;
    trace::ValueStats st;
};

F32Grads step_log2_histogram(lesson::Lesson& L, const Trained& t)
{
    L.step("Where the gradients sit: log2 |g|");
    L.expect("The gradients spread over many powers of two. Values below 2^-25 become 0 in f16; values between\n"
             "2^-24 and 2^-14 survive as subnormals, with fewer bits. bf16's smallest normal, 2^-126, is far off\n"
             "to the left: nothing comes near it. No gradient is anywhere near f16's largest number 65504.");
    const Tensor g32 = probe_grads(*t.model, t.probe, f32);
    const trace::ValueStats st = trace::compute_stats(g32);
    const std::vector<double> logs = log2_magnitudes(g32);
    const auto count_below = [&](double e) { return std::count_if(logs.begin(), logs.end(), [&](double v) { return v < e; }); };
    const auto below_half_subnormal = count_below(-25), below_normal = count_below(-14);
    std::printf("   %zu gradient values, %s exactly 0 in f32 (blank pixels, inactive ReLUs), smallest |g| %s, largest %s\n", static_cast<std::size_t>(g32.numel()),
                pct(st.zeros).c_str(), lesson::fmt(st.min_abs).c_str(), lesson::fmt(st.max_abs).c_str());
    std::printf("   below 2^-25 (become 0 in f16): %lld   below 2^-14 (f16 subnormal or 0): %lld   of %zu nonzero\n",
                static_cast<long long>(below_half_subnormal), static_cast<long long>(below_normal), logs.size());
    std::printf("   compute_stats: f16_underflow %s, bf16_underflow %s, f16_overflow %s\n", pct(st.f16_underflow).c_str(),
                pct(st.bf16_underflow).c_str(), pct(st.f16_overflow).c_str());
    L.check(st.f16_underflow > 0.01, "more than 1 % of the nonzero gradient values would become 0 in f16");
    L.check(std::abs(st.f16_underflow - double(below_half_subnormal) / double(logs.size())) < 0.002,
            "compute_stats' f16_underflow agrees with counting log2|g| < -25 by hand");
    L.check(st.bf16_underflow == 0, "none would become 0 in bf16");
    L.check(st.max_abs < 65504.0 / 1024, "the largest gradient is over 1024x below 65504: there is room to scale up");
    // Two views of one histogram: near f16's limits, and wide enough to reach bf16's.
    const std::vector<lesson::Mark> f16_marks{{-24, "f16 smallest subnormal 2^-24", "#1b6e3c"},
                                              {-14, "f16 smallest normal 2^-14", "#1b6e3c"},
                                              {std::log2(65504.0), "f16 max 65504", "#1b6e3c"}};
    lesson::Histogram near = lesson::make_histogram(logs, -60, 20, 80);
    near.title = "log2 |gradient| of the MLP after " + std::to_string(kEpochs) + " epochs (one batch of 256)";
    near.x_label = "log2 |g|  (values below -60 are counted in the first bin)";
    near.x_marks = f16_marks;
    L.write_plot("log2_grad_f16", near,
                 "Where the gradients sit: the bars left of f16's 2^-24 line become 0 in f16, those between 2^-24 and 2^-14 are "
                 "subnormals with fewer bits, and nothing comes near f16's max on the right.");
    lesson::Histogram wide = lesson::make_histogram(logs, -144, 16, 160);
    wide.title = "The same gradients against bf16's range";
    wide.x_label = "log2 |g|";
    wide.x_marks = f16_marks;
    wide.x_marks.push_back({-126, "bf16 smallest normal 2^-126", "#e8862a"});
    wide.x_marks.push_back({-133, "bf16 smallest subnormal 2^-133", "#e8862a"});
    L.write_plot("log2_grad_bf16", wide, "bf16 has f32's exponent: its limits are far to the left of every gradient, so none underflows.");
    return {g32, st};
}

// Returns the share of the nonzero f32 gradient values that f16 autocast zeroes.
double step_autocast_loses(lesson::Lesson& L, const Trained& t, const F32Grads& f32_grads)
{
    L.step("What autocast without a scaler really loses");
    L.expect("Now the same batch and weights under autocast, no scaler. With f16, backward runs its matmuls in\n"
             "f16, and gradient values that f32 has as nonzero come out exactly 0: about the share predicted\n"
             "above, or a bit more. With bf16, almost none.");
    const Tensor g16 = probe_grads(*t.model, t.probe, f16);
    const Tensor gbf16 = probe_grads(*t.model, t.probe, bf16);
    const double lost16 = lost_share(f32_grads.g32, g16), lostbf16 = lost_share(f32_grads.g32, gbf16);
    std::printf("   nonzero in f32 but exactly 0 with f16 autocast: %s   with bf16 autocast: %s\n", pct(lost16).c_str(), pct(lostbf16).c_str());
    L.check(lost16 > 0.5 * f32_grads.st.f16_underflow, "f16 autocast loses at least about the predicted share");
    L.check(lostbf16 < lost16 / 10, "bf16 autocast loses less than a tenth of what f16 loses");
    return lost16;
}

// The loss-scale window of f16 for these gradients, and what S = 65536 loses.
struct Window {
    double low = 1, high = 1;
    double lost_at_65536 = 0;
};

Window step_scale_window(lesson::Lesson& L, const Trained& t, const F32Grads& f32_grads)
{
    L.step("Scale the loss and they come back");
    L.expect("Multiplying the loss by S multiplies every gradient by S (backward is linear): log2|g| moves right by\n"
             "log2(S), out of f16's underflow zone; dividing by S afterwards, in f32, gives the gradients back. The\n"
             "largest gradient times S must stay below 65504, so S has a window: big enough to save nearly all\n"
             "small values, small enough not to overflow the largest. 65536, GradScaler's default, falls inside it.");
    const Tensor& g32 = f32_grads.g32;
    const trace::ValueStats& st = f32_grads.st;
    // The window: the smallest power of two that leaves at most 0.1 % of the values to underflow,
    // and the largest that does not overflow f16.
    double low = 1, high = 1;
    while (trace::compute_stats(mul(g32, low)).f16_underflow > 0.001) low *= 2;
    while (!std::isinf(scalar_tensor(st.max_abs * high * 2, f16).item())) high *= 2;
    std::printf("   window: S from 2^%d (at most 0.1 %% of the values underflow) to 2^%d (%s x 2^%d still below 65504)\n",
                int(std::log2(low)), int(std::log2(high)), lesson::fmt(st.max_abs).c_str(), int(std::log2(high)));
    std::printf("   %-10s %-28s %s\n", "S", "predicted: S*g rounds to 0", "f16 autocast, loss x S: lost");
    std::vector<double> lost_at;
    Tensor at_high;
    for (double s : {1.0, 256.0, 65536.0, high}) {
        at_high = probe_grads(*t.model, t.probe, f16, s);
        lost_at.push_back(lost_share(g32, at_high));
        std::printf("   2^%-8d %-28s %s\n", int(std::log2(s)), pct(trace::compute_stats(mul(g32, s)).f16_underflow).c_str(),
                    pct(lost_at.back()).c_str());
    }
    L.check(lost_at[1] < lost_at[0], "S = 256 loses fewer gradient values than no scaling");
    L.check(lost_at[2] < 0.1 * lost_at[0], "S = 65536 loses less than a tenth of what no scaling loses");
    L.check(low <= 65536 && 65536 <= high, "65536 lies in the window for this model");
    L.check(trace::compute_stats(at_high).infs == 0 && trace::compute_stats(at_high).nans == 0,
            "at the top of the window, f16 backward of loss x S gives no inf or NaN gradient");
    return {low, high, lost_at[2]};
}

void step_summary(lesson::Lesson& L, const trace::ValueStats& st, double lost16, const Window& window)
{
    L.step("Summary");
    L.say("f16 training without loss scaling silently zeroes the smallest gradients, more of them the better the\n"
          "model fits. bf16 has f32's range and does not. The next lesson scales the loss by hand.");
    L.key_result("after " + std::to_string(kEpochs) + " epochs, " + pct(st.f16_underflow) + " of the MLP's nonzero gradient values are below f16's reach (bf16: " +
                 pct(st.bf16_underflow) + ")");
    L.key_result("loss-scale window for f16: 2^" + std::to_string(int(std::log2(window.low))) + " to 2^" +
                 std::to_string(int(std::log2(window.high))));
    L.key_result("f16 autocast without a scaler zeroes " + pct(lost16) + " of them; with the loss x 65536, " + pct(window.lost_at_65536));
}

void run(lesson::Lesson& L)
{
    L.say("Gradients of a mean loss get small: each is an average over the batch, and they shrink further\n"
          "as the model fits. f16 has nothing below 2^-24 = 5.96e-8 (its smallest subnormal); below half of\n"
          "that a value becomes exactly 0. bf16 reaches 2^-133, like f32.");
    const Trained trained = step_train_f32(L);
    const F32Grads f32_grads = step_log2_histogram(L, trained);
    const double lost16 = step_autocast_loses(L, trained, f32_grads);
    const Window window = step_scale_window(L, trained, f32_grads);
    step_summary(L, f32_grads.st, lost16, window);
}

const lesson::Registration registered{{11, "gradient_underflow", "Gradient underflow: what f16 loses",
                                       "gradient underflow in f16 (log2 |g| against 2^-24)", run}};

}  // namespace
