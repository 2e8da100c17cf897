// Losses: values a student can check by hand, f64 gradients (each reduction, several shapes,
// ignore_index, pos_weight), f16/bf16 results and gradients within the dtype tolerance of f64,
// stability at extreme logits, one graph node per loss, and errors.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <numbers>
#include <string>

#include <tinyamp/tinyamp.h>

#include "tests/support/expect_error.h"
#include "tests/support/tolerance.h"

using namespace tinyamp;
using tinyamp::test::check_close;
using tinyamp::test::error_message;

namespace {

const std::vector<Reduction> kReductions = {Reduction::none, Reduction::mean, Reduction::sum};

// A loss as a function of its float inputs only (labels and options are fixed in the closure).
struct LossCase {
    std::string name;
    std::function<Tensor(const std::vector<Tensor>&)> fn;
    std::vector<Tensor> inputs;  // f64; every one gets a gradient
};

std::string describe(const char* op, Reduction reduction, const std::string& detail)
{
    std::string s = op;
    s += " reduction=";
    s += reduction_name(reduction);
    s += ' ';
    s += detail;
    return s;
}

Tensor uniform(const Shape& shape, double lo, double hi, std::uint64_t seed)
{
    Generator gen(seed);
    return add(mul(rand(shape, f64, gen), hi - lo), lo);
}

Tensor normal(const Shape& shape, double scale, std::uint64_t seed)
{
    Generator gen(seed);
    return mul(randn(shape, f64, gen), scale);
}

Tensor labels(std::initializer_list<double> values) { return tensor(values, i64); }

Tensor scalar_f64(double v) { return scalar_tensor(v, f64); }

void check_gradients(const LossCase& c)
{
    INFO(c.name);
    std::vector<Tensor> leaves;
    for (const Tensor& x : c.inputs) leaves.push_back(x.clone().requires_grad_());
    const GradcheckResult r = gradcheck(c.fn, leaves);
    INFO(r.report);
    CHECK(r.ok);
}

// The loss and its gradients on f16/bf16 inputs vs the same in f64 on the same rounded inputs.
void check_low_precision(const LossCase& c)
{
    for (DType d : {f16, bf16}) {
        INFO(c.name << " in " << std::string(dtype_name(d)));
        std::vector<Tensor> low, exact;
        for (const Tensor& x : c.inputs) {
            low.push_back(x.to(d).requires_grad_());
            exact.push_back(low.back().detach().to(f64).requires_grad_());
        }
        const Tensor y = c.fn(low), y_exact = c.fn(exact);
        CHECK(y.dtype() == d);
        check_close(y, y_exact, d);
        y.backward(ones_like(y));
        y_exact.backward(ones_like(y_exact));
        for (std::size_t i = 0; i < low.size(); ++i) {
            INFO("gradient of input " << i);
            CHECK(low[i].grad().dtype() == d);
            check_close(low[i].grad(), exact[i].grad(), d);
        }
    }
}

void check_all(const std::vector<LossCase>& cases)
{
    for (const LossCase& c : cases) {
        check_gradients(c);
        check_low_precision(c);
    }
}

// Class-index problems: (logits shape, labels), some with ignored samples.
struct ClassCase {
    Shape shape;
    Tensor target;
    std::int64_t ignore_index;
    std::string detail;
};

std::vector<ClassCase> class_cases()
{
    return {
        {{4, 3}, labels({2, 0, 1, 1}), -100, "[4, 3]"},
        {{1, 5}, labels({4}), -100, "[1, 5]"},
        {{6, 2}, labels({1, 0, 0, 1, 1, 0}), -100, "[6, 2]"},
        {{3}, scalar_tensor(1.0, i64), -100, "unbatched [3]"},
        {{4, 3}, labels({2, -100, 0, -100}), -100, "[4, 3] with 2 samples ignored"},
        {{4, 3}, labels({2, 0, 1, 0}), 0, "[4, 3] with ignore_index 0"},
    };
}

// Backward is written with ops, so it can be differentiated again: the Hessian times a random v
// (by a second backward through the first) must match finite differences of the gradient, within
// gradcheck's own tolerances.
void check_second_order(const std::string& what, const std::function<Tensor(const Tensor&)>& loss, const Tensor& at)
{
    INFO(what);
    const auto gradient = [&](const Tensor& point, bool create_graph) {
        const Tensor x = point.detach().clone().requires_grad_();
        loss(x).backward(Tensor(), false, create_graph);
        return std::pair{x, x.grad()};
    };
    Generator gen(7);
    const Tensor v = randn(at.shape(), f64, gen);
    const auto [x, g] = gradient(at, true);
    const Tensor first = g.detach().clone();
    sum(mul(g, v)).backward();
    const Tensor hessian_v = sub(x.grad(), first);  // x.grad() now holds g + H v
    const GradcheckOptions o;
    const Tensor plus = gradient(add(at, mul(v, o.eps)), false).second, minus = gradient(sub(at, mul(v, o.eps)), false).second;
    const Tensor numerical = div(sub(plus, minus), 2 * o.eps);
    const std::vector<double> a = hessian_v.to_vector(), n = numerical.to_vector();
    for (std::size_t i = 0; i < a.size(); ++i) {
        INFO("element " << i << ": " << a[i] << " vs finite differences " << n[i]);
        CHECK(std::abs(a[i] - n[i]) <= o.atol + o.rtol * std::abs(n[i]));
    }
}

}  // namespace

// ---------------------------------------------------------------- values by hand

TEST_CASE("reduction names are PyTorch's strings")
{
    CHECK(std::string(reduction_name(Reduction::none)) == "none");
    CHECK(std::string(reduction_name(Reduction::mean)) == "mean");
    CHECK(std::string(reduction_name(Reduction::sum)) == "sum");
}

TEST_CASE("mse_loss by hand: squared differences, then none/sum/mean")
{
    const Tensor x = tensor({1.0, 2.0, 3.0}, f64), t = tensor({1.0, 0.0, 0.0}, f64);
    CHECK(mse_loss(x, t, Reduction::none).to_vector() == std::vector<double>{0, 4, 9});
    CHECK(mse_loss(x, t, Reduction::sum).item() == 13);
    check_close(mse_loss(x, t), scalar_f64(13.0 / 3), f64);  // mean is the default

    const Tensor w = x.clone().requires_grad_(), u = t.clone().requires_grad_();
    mse_loss(w, u).backward();  // 2 (x - t) / 3
    check_close(w.grad(), tensor({0.0, 4.0 / 3, 2.0}, f64), f64);
    check_close(u.grad(), tensor({0.0, -4.0 / 3, -2.0}, f64), f64);
}

TEST_CASE("cross_entropy by hand: uniform logits over C classes cost log(C)")
{
    for (std::int64_t classes : {2, 10, 1000}) {
        INFO(classes << " classes");
        const Tensor logits = zeros({4, classes});
        const Tensor target = labels({0, 1, 1, 0});
        check_close(cross_entropy(logits, target), scalar_f64(std::log(double(classes))), f32);
    }
    // Logits log(1), log(2), log(3): softmax is (1/6, 2/6, 3/6), so class 2 costs log 2 and class 0 log 6.
    const Tensor x = log(tensor({1.0, 2.0, 3.0}, {1, 3}, f64));
    check_close(cross_entropy(x, labels({2})), scalar_f64(std::numbers::ln2), f64);
    check_close(cross_entropy(x, labels({0})), scalar_f64(std::log(6.0)), f64);
    // Its gradient is softmax - onehot(target).
    const Tensor w = x.clone().requires_grad_();
    cross_entropy(w, labels({2}), Reduction::sum).backward();
    check_close(w.grad(), tensor({1.0 / 6, 2.0 / 6, -0.5}, {1, 3}, f64), f64);
}

TEST_CASE("cross_entropy equals nll_loss of the log-softmax")
{
    const Tensor x = normal({5, 4}, 3.0, 1);
    const Tensor t = labels({3, 0, 2, 2, 1});
    const Tensor log_softmax = sub(x, log(sum(exp(x), {1}, true)));
    for (Reduction r : kReductions) {
        INFO(std::string(reduction_name(r)));
        check_close(cross_entropy(x, t, r), nll_loss(log_softmax, t, r), f64);
    }
}

TEST_CASE("nll_loss by hand: picks -log_probs of each target, and ignore_index drops samples from the mean")
{
    const Tensor lp = tensor({-1.0, -2.0, -3.0, -4.0, -5.0, -6.0}, {3, 2}, f64);
    const Tensor t = labels({0, -100, 1});  // the middle sample is ignored (the default ignore_index)
    CHECK(nll_loss(lp, t, Reduction::none).to_vector() == std::vector<double>{1, 0, 6});
    CHECK(nll_loss(lp, t, Reduction::sum).item() == 7);
    CHECK(nll_loss(lp, t).item() == 3.5);  // (1 + 6) / 2 samples kept
    CHECK(nll_loss(lp, labels({0, 1, 1}), Reduction::mean, 1).item() == 1);  // ignore_index 1: only sample 0 counts

    const Tensor w = lp.clone().requires_grad_();
    nll_loss(w, t).backward();
    CHECK(w.grad().to_vector() == std::vector<double>{-0.5, 0, 0, 0, 0, -0.5});

    // One unbatched sample: [C] scores and a 0-D target.
    const Tensor one = nll_loss(tensor({-1.0, -2.0, -3.0}, f64), scalar_tensor(2.0, i64), Reduction::none);
    CHECK(one.shape() == Shape{});
    CHECK(one.item() == 3);
}

TEST_CASE("when every sample is ignored the mean is NaN (as in PyTorch) but the gradient is 0")
{
    const Tensor x = normal({2, 3}, 1.0, 2).requires_grad_();
    const Tensor t = labels({-100, -100});
    const Tensor y = cross_entropy(x, t);
    CHECK(std::isnan(y.item()));
    CHECK(cross_entropy(x, t, Reduction::sum).item() == 0);
    y.backward();
    CHECK(x.grad().to_vector() == std::vector<double>(6, 0.0));
}

TEST_CASE("binary_cross_entropy by hand, and the clamp at p = 0 or 1")
{
    check_close(binary_cross_entropy(tensor({0.5}, f64), tensor({1.0}, f64)), scalar_f64(std::numbers::ln2), f64);
    check_close(binary_cross_entropy(tensor({0.25}, f64), tensor({0.5}, f64)), scalar_f64(-(0.5 * std::log(0.25) + 0.5 * std::log(0.75))), f64);
    // A confident wrong answer costs 100 (the log is clamped at -100), not inf; a confident right one 0.
    const Tensor p = tensor({0.0, 1.0, 0.0, 1.0}, f32), t = tensor({1.0, 0.0, 0.0, 1.0}, f32);
    CHECK(binary_cross_entropy(p, t, Reduction::none).to_vector() == std::vector<double>{100, 100, 0, 0});
    CHECK(binary_cross_entropy(p, t, Reduction::sum).item() == 200);
    const Tensor w = p.clone().requires_grad_();
    binary_cross_entropy(w, t, Reduction::sum).backward();  // (p - t) / max(p (1 - p), 1e-12): large but finite
    for (double g : w.grad().to_vector()) CHECK(std::isfinite(g));
    CHECK(w.grad().at({0}) < 0);
    CHECK(w.grad().at({1}) > 0);
}

TEST_CASE("binary_cross_entropy's gradient clamps p (1 - p) at PyTorch's EPSILON, the float 1e-12, in f64 too")
{
    // p = 0 with target 1: d/dp = (0 - 1) / EPSILON. PyTorch's EPSILON is a float constant, so
    // an f64 input divides by 1e-12f (9.99999996e-13), not by the double 1e-12.
    const Tensor p = tensor({0.0}, f64).requires_grad_();
    binary_cross_entropy(p, tensor({1.0}, f64), Reduction::sum).backward();
    CHECK(p.grad().item() == -1.0 / double(1e-12f));
    CHECK(p.grad().item() != -1.0 / 1e-12);
}

TEST_CASE("binary_cross_entropy_with_logits by hand, with and without pos_weight")
{
    // sigmoid(0) = 1/2: log 2 whatever the target.
    check_close(binary_cross_entropy_with_logits(zeros({3}, f64), tensor({0.0, 0.5, 1.0}, f64)), scalar_f64(std::numbers::ln2), f64);
    // pos_weight 3 triples the cost of the positive term only.
    const Tensor pw = tensor({3.0}, f64);
    check_close(binary_cross_entropy_with_logits(zeros({1}, f64), ones({1}, f64), Reduction::sum, pw), scalar_f64(3 * std::numbers::ln2), f64);
    check_close(binary_cross_entropy_with_logits(zeros({1}, f64), zeros({1}, f64), Reduction::sum, pw), scalar_f64(std::numbers::ln2), f64);
}

TEST_CASE("binary_cross_entropy_with_logits equals binary_cross_entropy of the sigmoid")
{
    const Tensor x = normal({3, 4}, 2.0, 3);
    const Tensor t = uniform({3, 4}, 0.0, 1.0, 4);
    for (Reduction r : kReductions) {
        INFO(std::string(reduction_name(r)));
        check_close(binary_cross_entropy_with_logits(x, t, r), binary_cross_entropy(sigmoid(x), t, r), f64);
    }
}

// ---------------------------------------------------------------- gradients and low precision

TEST_CASE("mse_loss: f64 gradients for input and target, and f16/bf16 within the dtype tolerance")
{
    std::vector<LossCase> cases;
    for (Reduction r : kReductions)
        for (const Shape& shape : std::vector<Shape>{{5}, {3, 4}, {2, 3, 2}, {}})
            cases.push_back({describe("mse_loss", r, shape_str(shape)),
                             [r](const std::vector<Tensor>& in) { return mse_loss(in[0], in[1], r); },
                             {normal(shape, 1.0, 10), normal(shape, 1.0, 11)}});
    check_all(cases);
}

TEST_CASE("nll_loss: f64 gradients, and f16/bf16 within the dtype tolerance")
{
    std::vector<LossCase> cases;
    for (Reduction r : kReductions)
        for (const ClassCase& c : class_cases())
            cases.push_back({describe("nll_loss", r, c.detail),
                             [r, c](const std::vector<Tensor>& in) { return nll_loss(in[0], c.target, r, c.ignore_index); },
                             {uniform(c.shape, -4.0, -0.1, 20)}});
    check_all(cases);
}

TEST_CASE("cross_entropy: f64 gradients, and f16/bf16 within the dtype tolerance")
{
    std::vector<LossCase> cases;
    for (Reduction r : kReductions) {
        for (const ClassCase& c : class_cases())
            cases.push_back({describe("cross_entropy", r, c.detail),
                             [r, c](const std::vector<Tensor>& in) { return cross_entropy(in[0], c.target, r, c.ignore_index); },
                             {normal(c.shape, 2.0, 30)}});
        cases.push_back({describe("cross_entropy", r, "[3, 4] with widely spread logits"),
                         [r](const std::vector<Tensor>& in) { return cross_entropy(in[0], labels({0, 3, 1}), r); },
                         {normal({3, 4}, 20.0, 31)}});
    }
    check_all(cases);
}

TEST_CASE("binary_cross_entropy: f64 gradients for probabilities and target, and f16/bf16 within the dtype tolerance")
{
    std::vector<LossCase> cases;
    for (Reduction r : kReductions)
        for (const Shape& shape : std::vector<Shape>{{5}, {3, 4}, {}})
            cases.push_back({describe("binary_cross_entropy", r, shape_str(shape)),
                             [r](const std::vector<Tensor>& in) { return binary_cross_entropy(in[0], in[1], r); },
                             {uniform(shape, 0.05, 0.95, 40), uniform(shape, 0.0, 1.0, 41)}});
    check_all(cases);
}

TEST_CASE("binary_cross_entropy_with_logits: f64 gradients for logits, target and pos_weight, and f16/bf16 within the dtype tolerance")
{
    std::vector<LossCase> cases;
    for (Reduction r : kReductions) {
        for (const Shape& shape : std::vector<Shape>{{5}, {3, 4}, {}})
            cases.push_back({describe("binary_cross_entropy_with_logits", r, shape_str(shape)),
                             [r](const std::vector<Tensor>& in) { return binary_cross_entropy_with_logits(in[0], in[1], r); },
                             {normal(shape, 3.0, 50), uniform(shape, 0.0, 1.0, 51)}});
        // pos_weight: one per class (broadcast over the batch), one per element, and a single 0-D one.
        for (const Shape& pw_shape : std::vector<Shape>{{4}, {3, 4}, {}})
            cases.push_back({describe("binary_cross_entropy_with_logits", r, "[3, 4] with pos_weight " + shape_str(pw_shape)),
                             [r](const std::vector<Tensor>& in) { return binary_cross_entropy_with_logits(in[0], in[1], r, in[2]); },
                             {normal({3, 4}, 3.0, 52), uniform({3, 4}, 0.0, 1.0, 53), uniform(pw_shape, 0.5, 3.0, 54)}});
    }
    check_all(cases);
}

TEST_CASE("the backward of each loss can itself be differentiated")
{
    const Tensor t = uniform({3, 4}, 0.0, 1.0, 80);
    check_second_order("cross_entropy", [](const Tensor& x) { return cross_entropy(x, labels({0, 3, -100}), Reduction::mean); },
                       normal({3, 4}, 2.0, 81));
    check_second_order("binary_cross_entropy", [&](const Tensor& p) { return binary_cross_entropy(p, t, Reduction::sum); },
                       uniform({3, 4}, 0.1, 0.9, 82));
    const Tensor pw = uniform({4}, 0.5, 3.0, 83);
    check_second_order("binary_cross_entropy_with_logits",
                       [&](const Tensor& x) { return binary_cross_entropy_with_logits(x, t, Reduction::mean, pw); }, normal({3, 4}, 2.0, 84));
    check_second_order("mse_loss", [&](const Tensor& x) { return mse_loss(x, t); }, normal({3, 4}, 1.0, 85));
}

// ---------------------------------------------------------------- stability

TEST_CASE("cross_entropy stays finite for logits of 1e4 in f32")
{
    const Tensor x = tensor({1e4, 0.0, -1e4, 0.0, 1e4, 0.0}, {2, 3}, f32).requires_grad_();
    const Tensor y = cross_entropy(x, labels({1, 1}), Reduction::none);
    CHECK(y.to_vector() == std::vector<double>{1e4, 0});  // row 0 bets everything on the wrong class
    sum(y).backward();
    CHECK(x.grad().to_vector() == std::vector<double>{1, -1, 0, 0, 0, 0});
}

TEST_CASE("cross_entropy of f16 logits near 65504 is finite and matches f64")
{
    // A naive softmax in f16 would compute e^65504 = inf. Shifted by the row maximum it never does.
    const Tensor x = tensor({65504.0, 65472.0, -65504.0, -65504.0, 65504.0, 65440.0}, {2, 3}, f16).requires_grad_();
    const Tensor t = labels({1, 2});
    const Tensor y = cross_entropy(x, t, Reduction::none);
    CHECK(y.dtype() == f16);
    for (double v : y.to_vector()) CHECK(std::isfinite(v));
    check_close(y, cross_entropy(x.detach().to(f64), t, Reduction::none), f16);  // about 32 and 64
    sum(y).backward();
    CHECK(x.grad().dtype() == f16);
    for (double g : x.grad().to_vector()) CHECK(std::isfinite(g));
}

TEST_CASE("binary_cross_entropy_with_logits stays finite for extreme logits")
{
    CHECK(binary_cross_entropy_with_logits(tensor({1e4, -1e4, 1e4}, f32), tensor({0.0, 1.0, 1.0}, f32), Reduction::none).to_vector() ==
          std::vector<double>{1e4, 1e4, 0});
    const Tensor y = binary_cross_entropy_with_logits(tensor({65504.0, -65504.0}, f16), tensor({0.0, 1.0}, f16), Reduction::none);
    CHECK(y.dtype() == f16);
    CHECK(y.to_vector() == std::vector<double>{65504, 65504});
}

// ---------------------------------------------------------------- graph and dtypes

TEST_CASE("each loss is one graph node named as its function")
{
    const Tensor x = normal({2, 3}, 1.0, 60).requires_grad_();
    const Tensor p = uniform({2, 3}, 0.1, 0.9, 61).requires_grad_();
    const Tensor t = uniform({2, 3}, 0.0, 1.0, 62);
    const Tensor c = labels({0, 2});
    CHECK(mse_loss(x, t).grad_fn_name() == "mse_loss");
    CHECK(nll_loss(x, c).grad_fn_name() == "nll_loss");
    CHECK(binary_cross_entropy(p, t).grad_fn_name() == "binary_cross_entropy");
    CHECK(binary_cross_entropy_with_logits(x, t).grad_fn_name() == "binary_cross_entropy_with_logits");
    const Tensor y = cross_entropy(x, c);
    CHECK(y.grad_fn_name() == "cross_entropy");
    REQUIRE(y.grad_fn()->next_edges.size() == 2);  // logits and target: no log_softmax node in between
    CHECK(y.grad_fn()->next_edges[0].node->name() == "AccumulateGrad");
}

TEST_CASE("f16/bf16 losses come out in the input dtype, and mixed float inputs promote")
{
    for (DType d : {f16, bf16}) {
        INFO(std::string(dtype_name(d)));
        const Tensor x = normal({2, 3}, 1.0, 70).to(d), t = uniform({2, 3}, 0.0, 1.0, 71).to(d);
        CHECK(mse_loss(x, t).dtype() == d);
        CHECK(cross_entropy(x, labels({0, 1})).dtype() == d);
        CHECK(nll_loss(x, labels({0, 1})).dtype() == d);
        CHECK(binary_cross_entropy(t, t).dtype() == d);
        CHECK(binary_cross_entropy_with_logits(x, t).dtype() == d);
    }
    const Tensor h = tensor({1.0, 2.0}, f16).requires_grad_();
    const Tensor y = mse_loss(h, tensor({0.0, 0.0}, f32));
    CHECK(y.dtype() == f32);
    y.backward();
    CHECK(h.grad().dtype() == f16);  // each gradient in its input's dtype
    CHECK(h.grad().to_vector() == std::vector<double>{1, 2});
}

// ---------------------------------------------------------------- errors

TEST_CASE("class targets must be i64 indices from 0 to C-1: errors name the label and C")
{
    const Tensor x = zeros({2, 3});
    CHECK(error_message([&] { cross_entropy(x, labels({0, 3})); }, ErrorKind::index) ==
          "cross_entropy: target 3 (sample 1) is not a class index: with 3 classes, targets must be in [0, 3) or equal ignore_index (-100)");
    CHECK(error_message([&] { nll_loss(x, labels({-1, 0})); }, ErrorKind::index).find("target -1 (sample 0)") != std::string::npos);
    CHECK(error_message([&] { cross_entropy(x, tensor({0.0, 1.0}, f32)); }, ErrorKind::dtype) ==
          "cross_entropy: target must hold i64 class indices, got f32; convert the labels with .to(i64) (class probabilities as targets are "
          "not supported)");
    CHECK(error_message([&] { cross_entropy(x, labels({0, 1, 2})); }, ErrorKind::shape) ==
          "cross_entropy: input of shape [2, 3] needs a target of shape [2] (one class index per sample), got [3]");
    CHECK(error_message([&] { cross_entropy(zeros({2, 3, 4}), labels({0, 1})); }, ErrorKind::shape).find("must be [N, C]") !=
          std::string::npos);
    CHECK(error_message([&] { nll_loss(zeros({2, 3}, i64), labels({0, 1})); }, ErrorKind::dtype).find("input must be a floating point") !=
          std::string::npos);
}

TEST_CASE("float-target losses: shape, dtype and range errors")
{
    CHECK(error_message([] { mse_loss(zeros({4, 1}), zeros({4})); }, ErrorKind::shape) ==
          "mse_loss: target of shape [4] does not match input of shape [4, 1]; give one target per input element (an [N, 1] input with an "
          "[N] target is the usual slip: reshape one of them)");
    CHECK(error_message([] { mse_loss(zeros({2}), zeros({2}, i64)); }, ErrorKind::dtype).find("target must be a floating point tensor") !=
          std::string::npos);
    CHECK(error_message([] { binary_cross_entropy(tensor({0.5, 1.5}), tensor({0.0, 1.0})); }, ErrorKind::value) ==
          "binary_cross_entropy: input must hold probabilities in [0, 1], but element 1 is 1.5; apply sigmoid first, or better pass the logits "
          "to binary_cross_entropy_with_logits");
    CHECK(error_message([] { binary_cross_entropy(tensor({std::nan("")}), tensor({0.0})); }, ErrorKind::value).find("element 0 is nan") !=
          std::string::npos);
    CHECK(error_message([] { binary_cross_entropy_with_logits(zeros({2, 3}), zeros({2, 3}), Reduction::mean, ones({2})); }, ErrorKind::shape)
              .find("pos_weight of shape [2] must broadcast to the logits' shape [2, 3]") != std::string::npos);
}
