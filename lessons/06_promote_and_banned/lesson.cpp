// Lesson 6: the two autocast rules lesson 5 left for later. "promote": cat and stack run in the
// widest dtype among their inputs (never lower). "banned": binary_cross_entropy is refused under
// CUDA autocast, because a sigmoid that saturated in f16 makes its log useless; the fix,
// binary_cross_entropy_with_logits, then trains a small net on the breast-cancer data in bf16.
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "lessons/support/lesson.h"
#include "lessons/support/models.h"
#include "lessons/support/trace_queries.h"

using namespace tinyamp;

namespace {

// The region that casts what a CUDA run would, on CPU tensors (docs/autocast.md).
amp::AutocastOptions gpu_emulation()
{
    return {.dtype = f16, .table = std::make_shared<const amp::PolicyTable>(amp::PolicyTable::cuda())};
}

// ---------------------------------------------------------------- step 3: a saturated sigmoid

// 6 significant digits (the f16 results need them to show their rounding), and "NaN" for NaN.
std::string number(double value)
{
    if (std::isnan(value)) return "NaN";
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.6g", value);
    return buffer;
}

struct BceRow {
    double loss = 0;
    double grad = 0;  // d loss / d logit
};

// Loss and gradient per logit (label 0) when the sigmoid runs in `dtype` and BCE takes its output.
std::vector<BceRow> bce_on_sigmoid(const std::vector<double>& logits, DType dtype)
{
    const Tensor x = tensor(logits, {std::int64_t(logits.size())}, dtype).requires_grad_();
    const Tensor loss = binary_cross_entropy(sigmoid(x), zeros(x.shape(), dtype), Reduction::none);
    sum(loss).backward();
    std::vector<BceRow> rows;
    for (std::size_t i = 0; i < logits.size(); ++i) rows.push_back({loss.to_vector()[i], x.grad().to_vector()[i]});
    return rows;
}

// The same, straight from the logits (stored in `dtype`) with binary_cross_entropy_with_logits.
std::vector<BceRow> bce_with_logits(const std::vector<double>& logits, DType dtype)
{
    const Tensor x = tensor(logits, {std::int64_t(logits.size())}, dtype).requires_grad_();
    const Tensor loss = binary_cross_entropy_with_logits(x, zeros(x.shape(), dtype), Reduction::none);
    sum(loss).backward();
    std::vector<BceRow> rows;
    for (std::size_t i = 0; i < logits.size(); ++i) rows.push_back({loss.to_vector()[i], x.grad().to_vector()[i]});
    return rows;
}

// Loss against the logit (label 0) for x in [0, 16]: exact, BCE on an f16 / a bf16 sigmoid, and
// BCE-with-logits in f16. The sigmoid rounds to exactly 1 once 1 - sigmoid(x) ~ e^-x is below half
// the gap under 1, 2^-(mantissa bits + 2): at x = (mantissa bits + 2) ln 2.
void write_saturation_plot(lesson::Lesson& L)
{
    std::vector<double> xs;
    for (double x = 0; x <= 16; x += 0.25) xs.push_back(x);
    lesson::Series exact{"exact log(1 + e^x)", xs, {}, "#444444", false};
    for (double x : xs) exact.y.push_back(std::log1p(std::exp(x)));
    lesson::Series on_f16{"BCE(sigmoid) f16", xs, {}, "#2a9d5c", false}, on_bf16{"BCE(sigmoid) bf16", xs, {}, "#e8862a", false};
    lesson::Series logits{"with_logits f16", xs, {}, "#3c78dc", true};
    for (const BceRow& r : bce_on_sigmoid(xs, f16)) on_f16.y.push_back(r.loss);
    for (const BceRow& r : bce_on_sigmoid(xs, bf16)) on_bf16.y.push_back(r.loss);
    for (const BceRow& r : bce_with_logits(xs, f16)) logits.y.push_back(r.loss);
    const double ln2 = std::log(2.0);
    L.write_plot("bce_saturation",
                 lesson::LinePlot{"Label 0: loss against the logit (log scale)", "logit x", "loss", true,
                                  {exact, logits, on_f16, on_bf16},
                                  {{(traits(f16).mantissa_bits + 2) * ln2, "f16 sigmoid = 1", "#2a9d5c"},
                                   {(traits(bf16).mantissa_bits + 2) * ln2, "bf16 sigmoid = 1", "#e8862a"}},
                                  {}},
                 "BCE on a sigmoid stored in f16 or bf16 jumps to its clamp, 100, once the sigmoid rounds to 1 (x = 8.3 in f16, "
                 "6.2 in bf16); BCE-with-logits follows the exact loss all the way.");
}

// ---------------------------------------------------------------- step 4: breast cancer

struct Split {
    Tensor x_train, y_train, x_test, y_test;  // features standardized; labels as f32 0/1
};

Split load_cancer()
{
    const data::Dataset all = data::load_breast_cancer(data::data_path("breast_cancer.csv"));
    const auto [train, test] = data::train_test_split(all, 0.25, 0);
    // Standardize with the training set's mean and spread: raw features run from 0 to 4254.
    const Tensor mu = mean(train.features, {0}, true);
    const Tensor sd = sqrt(add(mean(mul(sub(train.features, mu), sub(train.features, mu)), {0}, true), 1e-12));
    return {div(sub(train.features, mu), sd).set_name("features"), train.labels.to(f32).set_name("labels"),
            div(sub(test.features, mu), sd), test.labels.to(f32)};
}

// The 30-16-1 MLP, drawn the same for every run.
lesson::Mlp make_net()
{
    Generator gen(0);
    return lesson::Mlp({30, 16, 1}, gen, {.weight_std = {1.0 / std::sqrt(30.0), 0.25}});
}

// One logit per sample, [n].
Tensor logits_of(const lesson::Mlp& net, const Tensor& x) { return net(x).reshape({x.size(0)}); }

double accuracy(const Tensor& logits, const Tensor& labels)
{
    const std::vector<double> z = logits.to_vector(), y = labels.to_vector();
    int right = 0;
    for (std::size_t i = 0; i < z.size(); ++i) right += (z[i] > 0) == (y[i] > 0.5) ? 1 : 0;
    return double(right) / double(z.size());
}

struct Run {
    std::vector<double> losses;
    double test_accuracy = 0;
    DType logits_dtype = f32;
    DType loss_dtype = f32;
};

constexpr int kSteps = 60;

// Full-batch SGD with momentum; the forward and the loss under `autocast_on` bf16 autocast.
Run train(const Split& data, bool autocast_on, trace::Trace* first_step)
{
    const lesson::Mlp net = make_net();
    optim::SGD opt(net.params(), {.lr = 0.1, .momentum = 0.9});
    Run result;
    for (int step = 0; step < kSteps; ++step) {
        std::unique_ptr<trace::TraceRecorder> recorder;
        if (first_step && step == 0) recorder = std::make_unique<trace::TraceRecorder>(*first_step);
        Tensor loss;
        {
            amp::autocast region("cpu", {.enabled = autocast_on});
            const Tensor logits = logits_of(net, data.x_train);
            loss = binary_cross_entropy_with_logits(logits, data.y_train);
            result.logits_dtype = logits.dtype();
        }
        result.loss_dtype = loss.dtype();
        loss.backward();  // outside the region, as PyTorch recommends (lesson 7)
        recorder.reset();
        opt.step();
        opt.zero_grad();
        result.losses.push_back(loss.item());
    }
    NoGradGuard no_grad;
    amp::autocast region("cpu", {.enabled = autocast_on});
    result.test_accuracy = accuracy(logits_of(net, data.x_test), data.y_test);
    return result;
}

// ---------------------------------------------------------------- the lesson

void step_promote(lesson::Lesson& L, Generator& gen)
{
    L.step("promote: cat and stack run in the widest input dtype");
    L.expect("Under bf16 autocast on the CPU, cat of a bf16 and an f32 tensor casts the bf16 one UP and\n"
             "returns f32; cat of two bf16 tensors stays bf16; stack of two f32 tensors stays f32. promote\n"
             "never lowers a tensor (lower_precision_fp would have made the f32 ones bf16).");
    const Tensor act = randn({2, 3}, bf16, gen).set_name("act_bf16");  // e.g. a linear layer's output
    const Tensor feat = randn({2, 3}, f32, gen).set_name("feat_f32");   // e.g. an f32 side input
    trace::Trace joins;
    Tensor mixed, both_low, both_f32, added;
    {
        trace::TraceRecorder recorder(joins);
        amp::autocast region("cpu");
        mixed = cat({act, feat});
        both_low = cat({act, act});
        both_f32 = stack({feat, feat});
        added = add(act, feat);  // not in the table: ordinary type promotion
    }
    for (const trace::Event& e : joins.events()) std::printf("   %s\n", e.why.c_str());
    std::printf("   cat(bf16, f32) -> %s   cat(bf16, bf16) -> %s   stack(f32, f32) -> %s   add(bf16, f32) -> %s\n",
                dtype_name(mixed.dtype()), dtype_name(both_low.dtype()), dtype_name(both_f32.dtype()), dtype_name(added.dtype()));
    L.check(mixed.dtype() == f32, "cat(bf16, f32) under bf16 autocast gives f32");
    L.check(both_low.dtype() == bf16 && both_f32.dtype() == f32, "cat(bf16, bf16) stays bf16 and stack(f32, f32) stays f32: promote never lowers");
    const lesson::Events casts = lesson::casts(joins);
    const trace::Event* up = casts.size() == 1 ? casts[0] : nullptr;
    L.check(up && up->policy == "promote" && up->inputs[0].dtype == bf16 && up->outputs[0].dtype == f32 &&
                up->cache == trace::CacheEvent::none,
            "the only cast is promote's bf16->f32 of act_bf16, and it is not cached (only lower-precision casts are)");
    L.say("add is not in the table: it computes in the promoted dtype (f32) by the ordinary rules, with no\n"
          "autocast cast at all. On CUDA, PyTorch does not list cat and stack either; they reach the same f32\n"
          "by ordinary promotion. (PyTorch's CUDA promote list is addcdiv, addcmul, atan2, bilinear, cross, dot,\n"
          "vdot, grid_sampler, index_put, tensordot, scatter_add: ops tinyamp does not have.)");

    L.expect("f16 and bf16 are not promoted to each other under autocast: cat of an f16 and a bf16 tensor in a\n"
             "bf16 region is an error (PyTorch: \"Unexpected floating ScalarType in at::autocast::prioritize\").\n"
             "Outside autocast the same cat is fine and gives f32 (ordinary promotion).");
    const Tensor half = randn({2, 3}, f16, gen);
    std::string prioritize_error;
    try {
        amp::autocast region("cpu");
        cat({half, act});
    } catch (const Error& e) {
        prioritize_error = e.message();
    }
    std::printf("   error: %s\n", prioritize_error.c_str());
    L.check(!prioritize_error.empty(), "cat(f16, bf16) under bf16 autocast throws");
    L.check(cat({half, act}).dtype() == f32, "outside autocast, cat(f16, bf16) gives f32");
    L.key_result("cat(bf16, f32) runs in f32 under bf16 autocast (promote); cat(f16, bf16) is an error");
}

void step_banned(lesson::Lesson& L, Generator& gen)
{
    L.step("banned: binary_cross_entropy under CUDA autocast");
    L.expect("PyTorch registers binary_cross_entropy as banned on CUDA (and XPU): under autocast it raises,\n"
             "naming binary_cross_entropy_with_logits as the fix. On the CPU it is just fp32: it runs, with its\n"
             "input cast to f32. tinyamp's CUDA table does the same; here on CPU tensors through the GPU emulation.");
    const Tensor x = randn({4, 5}, f32, gen);
    const Tensor w = mul(randn({1, 5}, f32, gen), 0.5).requires_grad_().set_name("w");
    const Tensor labels = tensor({1, 0, 1, 1}, {4, 1});
    std::string banned_message;
    try {
        amp::autocast region("cpu", gpu_emulation());
        binary_cross_entropy(sigmoid(linear(x, w)), labels);
    } catch (const Error& e) {
        banned_message = e.message();
    }
    std::printf("   CUDA table, f16: binary_cross_entropy threw:\n");
    std::string quoted = banned_message;
    for (std::size_t at = 0; (at = quoted.find('\n', at)) != std::string::npos; at += 3) quoted.replace(at, 1, "\n| ");
    L.say("| " + quoted);
    L.check(banned_message.find("binary_cross_entropy_with_logits") != std::string::npos,
            "under the CUDA table the error names binary_cross_entropy_with_logits");
    trace::Trace cpu_bce;
    Tensor probs, cpu_loss;
    {
        trace::TraceRecorder recorder(cpu_bce);
        amp::autocast region("cpu");
        probs = sigmoid(linear(x, w));
        cpu_loss = binary_cross_entropy(probs, labels);
    }
    const trace::Event* bce = lesson::last_event(lesson::forward_ops(cpu_bce), "binary_cross_entropy");
    std::printf("   CPU table, bf16: sigmoid's output is %s; binary_cross_entropy [%s] -> %s, loss %s\n", dtype_name(probs.dtype()),
                bce ? bce->policy.c_str() : "?", dtype_name(cpu_loss.dtype()), lesson::fmt(cpu_loss.item()).c_str());
    L.check(bce && bce->policy == "fp32" && cpu_loss.dtype() == f32, "on the CPU table binary_cross_entropy runs, as fp32");
    L.check(probs.dtype() == bf16, "but the sigmoid before it ran in bf16 (sigmoid is not listed: it follows its bf16 input)");
    L.say("So the CPU does not refuse BCE, but the damage the ban is about is already done in the sigmoid.");
}

void step_saturated_sigmoid(lesson::Lesson& L)
{
    L.step("Why: the log of a saturated sigmoid");
    L.expect("Label 0, logit x: the exact loss is log(1 + e^x) and its gradient sigmoid(x), about 1 for big x.\n"
             "f16 has no number between 1 - 2^-11 and 1, so sigmoid(x) rounds to exactly 1 from x = 8.3 on\n"
             "(bf16: from x = 6.2). BCE then takes log(1 - 1): clamped to 100, and the gradient through a\n"
             "sigmoid whose slope p(1 - p) is 0 is lost: NaN in f16 (inf * 0), 0 in bf16.\n"
             "binary_cross_entropy_with_logits never forms p: at x = 10 in f16 it gives loss 10 and gradient 1\n"
             "(0.99995 rounded to f16), as it should.");
    const std::vector<double> xs = {2, 5, 8, 10, 16};
    const std::vector<BceRow> f16_rows = bce_on_sigmoid(xs, f16), bf16_rows = bce_on_sigmoid(xs, bf16),
                              logit_rows = bce_with_logits(xs, f16);
    std::printf("   %3s | %-19s | %-19s | %-19s | %-19s\n", "x", "exact loss, grad", "BCE(sigmoid) f16", "BCE(sigmoid) bf16",
                "with_logits f16");
    for (std::size_t i = 0; i < xs.size(); ++i) {
        const double exact_loss = std::log1p(std::exp(xs[i])), exact_grad = 1 / (1 + std::exp(-xs[i]));
        auto cell = [](double a, double b) { return number(a) + ", " + number(b); };
        std::printf("   %3g | %-19s | %-19s | %-19s | %-19s\n", xs[i], cell(exact_loss, exact_grad).c_str(),
                    cell(f16_rows[i].loss, f16_rows[i].grad).c_str(), cell(bf16_rows[i].loss, bf16_rows[i].grad).c_str(),
                    cell(logit_rows[i].loss, logit_rows[i].grad).c_str());
    }
    L.check(f16_rows[3].loss == 100 && std::isnan(f16_rows[3].grad), "x = 10 in f16: BCE says 100 (its clamp) and the gradient is NaN");
    L.check(bf16_rows[2].loss == 100 && bf16_rows[2].grad == 0, "x = 8 in bf16: BCE says 100 and the gradient is 0");
    bool logits_close = true;
    for (std::size_t i = 0; i < xs.size(); ++i) {
        const double exact_loss = std::log1p(std::exp(xs[i])), exact_grad = 1 / (1 + std::exp(-xs[i]));
        logits_close = logits_close && std::abs(logit_rows[i].loss - exact_loss) <= 2 * traits(f16).eps * exact_loss &&
                       std::abs(logit_rows[i].grad - exact_grad) <= 2 * traits(f16).eps;
    }
    L.check(logits_close, "with_logits in f16 is within f16 rounding of the exact loss and gradient at every x");
    write_saturation_plot(L);
    L.say("A sigmoid followed by BCE is where a confident, wrong prediction should teach the most; in f16 it\n"
          "teaches NaN. Fusing the two lets the loss compute log(1 + e^x) from x itself, in f32 under autocast.");
    L.key_result("logit 10, label 0 in f16: BCE(sigmoid) gives loss " + number(f16_rows[3].loss) + " and gradient " +
                 number(f16_rows[3].grad) + "; BCE-with-logits " + number(logit_rows[3].loss) + " and " + number(logit_rows[3].grad));
}

void step_breast_cancer(lesson::Lesson& L)
{
    L.step("BCE-with-logits on real data: breast cancer under bf16 autocast");
    L.expect("A 30-16-1 MLP on 426 training tumours (143 held out), full batch, 60 steps of SGD with momentum.\n"
             "Under bf16 autocast the logits come out bf16 and the loss f32 (binary_cross_entropy_with_logits is\n"
             "fp32). Test accuracy lands near 97%, within a couple of points of the same run in f32.");
    const Split cancer = load_cancer();
    trace::Trace step_trace;
    const Run amp_run = train(cancer, true, &step_trace);
    const Run f32_run = train(cancer, false, nullptr);
    std::printf("   %-14s loss step 1 %s -> step %d %s, test accuracy %.1f%%\n", "bf16 autocast:", lesson::fmt(amp_run.losses.front()).c_str(),
                kSteps, lesson::fmt(amp_run.losses.back()).c_str(), 100 * amp_run.test_accuracy);
    std::printf("   %-14s loss step 1 %s -> step %d %s, test accuracy %.1f%%\n", "f32:", lesson::fmt(f32_run.losses.front()).c_str(), kSteps,
                lesson::fmt(f32_run.losses.back()).c_str(), 100 * f32_run.test_accuracy);
    L.check(amp_run.logits_dtype == bf16 && amp_run.loss_dtype == f32, "under autocast the logits are bf16 and the loss is f32");
    L.check(amp_run.losses.back() < 0.5 * amp_run.losses.front(), "the bf16 run's loss falls to under half its start");
    L.check(amp_run.test_accuracy >= 0.93, "the bf16 run classifies at least 93% of the held-out tumours right");
    L.check(std::abs(amp_run.test_accuracy - f32_run.test_accuracy) <= 0.03, "bf16 and f32 test accuracies are within 3 points");

    std::vector<double> steps;
    for (int i = 1; i <= kSteps; ++i) steps.push_back(i);
    L.write_plot("cancer_loss",
                 lesson::LinePlot{"Breast cancer, BCE-with-logits: training loss", "step", "loss", false,
                                  {{"f32", steps, f32_run.losses, "#3c78dc", false}, {"bf16 autocast", steps, amp_run.losses, "#e8862a", true}},
                                  {},
                                  {}},
                 "Training loss of the same MLP in f32 and under bf16 autocast: the curves lie on top of each other.");
    L.write_graph("cancer_step", step_trace,
                  "One training step under bf16 autocast: both linears run in bf16 (weights cast once), and "
                  "binary_cross_entropy_with_logits casts the bf16 logits back to f32.");

    char line[160];
    std::snprintf(line, sizeof line, "breast cancer MLP, 60 steps, BCE-with-logits: test accuracy %.1f%% under bf16 autocast (f32 %.1f%%)",
                  100 * amp_run.test_accuracy, 100 * f32_run.test_accuracy);
    L.key_result(line);
}

void run(lesson::Lesson& L)
{
    L.say("Lesson 5 sorted ops into lower_precision_fp (matmul, linear: bf16) and fp32 (losses). Two\n"
          "rules are left: promote, for ops that join several inputs, and banned, for one loss.");
    Generator gen(0);  // steps 1 and 2 draw from it in turn
    step_promote(L, gen);
    step_banned(L, gen);
    step_saturated_sigmoid(L);
    step_breast_cancer(L);
}

const lesson::Registration registered{{6, "promote_and_banned", "promote and banned: cat, stack and binary_cross_entropy",
                                       "the promote rule (widest input dtype) and the banned BCE (use BCE-with-logits)", run}};

}  // namespace
