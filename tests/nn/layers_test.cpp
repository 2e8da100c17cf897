// The layers Linear, Conv2d, ReLU, GELU, Flatten and Dropout: output shapes, the forward equal to
// the functional op with the same weights, PyTorch's init bounds (reproducible under manual_seed),
// f64 gradients through the module by gradcheck, autocast keeping f32 master weights, and
// Dropout's statistics, scaling, gradient and seeding.
#include <doctest/doctest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <tinyamp/tinyamp.h>

#include "tests/support/expect_error.h"
#include "tests/support/module_gradcheck.h"

using namespace tinyamp;
using tinyamp::test::check_module_gradients;
using tinyamp::test::error_message;

namespace {

bool same_values(const Tensor& a, const Tensor& b)
{
    return a.dtype() == b.dtype() && a.shape() == b.shape() && a.to_vector() == b.to_vector();
}

// All values within [-bound, bound], and spread over it (not, say, all zero or all positive).
void check_uniform(const Tensor& t, double bound)
{
    CHECK(t.dtype() == f32);
    double lo = 0, hi = 0;
    for (double v : t.to_vector()) {
        CHECK(std::abs(v) <= bound);
        lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
    CHECK(lo < -0.8 * bound);
    CHECK(hi > 0.8 * bound);
}

}  // namespace

// ---------------------------------------------------------------- Linear

TEST_CASE("nn::Linear matches the functional op and maps the last dim from in_features to out_features")
{
    manual_seed(0);
    nn::Linear fc(4, 3);
    CHECK(fc.in_features == 4);
    CHECK(fc.out_features == 3);
    CHECK(fc.weight.shape() == Shape{3, 4});
    CHECK(fc.bias.shape() == Shape{3});
    Generator gen(1);
    for (const Shape& shape : {Shape{5, 4}, Shape{2, 5, 4}, Shape{4}}) {
        const Tensor x = randn(shape, f32, gen);
        const Tensor y = fc(x);
        Shape expected = shape;
        expected.back() = 3;
        CHECK(y.shape() == expected);
        CHECK(same_values(y, linear(x, fc.weight, fc.bias)));
    }
    CHECK(fc.extra_repr() == "in_features=4, out_features=3, bias=True");
}

TEST_CASE("nn::Linear without bias has only a weight")
{
    nn::Linear fc(4, 3, false);
    CHECK_FALSE(fc.bias.defined());
    CHECK(fc.named_parameters().size() == 1);
    CHECK(fc.named_parameters()[0].first == "weight");
    const Tensor x = randn({2, 4});
    CHECK(same_values(fc(x), linear(x, fc.weight)));
    CHECK(fc.extra_repr() == "in_features=4, out_features=3, bias=False");
}

TEST_CASE("nn::Linear init is U(-1/sqrt(in), 1/sqrt(in)) and reproducible under manual_seed")
{
    manual_seed(0);
    nn::Linear a(64, 256);
    check_uniform(a.weight, 1.0 / 8);
    check_uniform(a.bias, 1.0 / 8);
    manual_seed(0);
    nn::Linear b(64, 256);
    CHECK(same_values(a.weight, b.weight));
    CHECK(same_values(a.bias, b.bias));
    nn::Linear c(64, 256);  // the generator moved on: another draw
    CHECK_FALSE(same_values(a.weight, c.weight));
    manual_seed(1);
    nn::Linear d(64, 256);
    CHECK_FALSE(same_values(a.weight, d.weight));
    CHECK(error_message([] { nn::Linear(0, 3); }, ErrorKind::value).find("must be positive") != std::string::npos);
}

TEST_CASE("nn::Linear f64 gradients through the module by gradcheck")
{
    manual_seed(2);
    nn::Linear fc(4, 3);
    fc.to(f64);
    Generator gen(3);
    check_module_gradients(fc, randn({5, 4}, f64, gen));
    check_module_gradients(fc, randn({2, 3, 4}, f64, gen));
}

TEST_CASE("nn::Linear under bf16 autocast: bf16 output, f32 weight with an f32 gradient")
{
    manual_seed(4);
    nn::Linear fc(8, 4);
    const Tensor x = randn({3, 8});
    Tensor y;
    {
        amp::autocast region("cpu");
        y = fc(x);
        CHECK(same_values(y, linear(x, fc.weight, fc.bias)));  // the op, so the same policy
    }
    CHECK(y.dtype() == bf16);
    CHECK(same_values(y, linear(x.to(bf16), fc.weight.to(bf16), fc.bias.to(bf16))));
    CHECK(fc.weight.dtype() == f32);
    sum(y).backward();
    REQUIRE(fc.weight.grad().defined());
    CHECK(fc.weight.grad().dtype() == f32);
    CHECK(fc.bias.grad().dtype() == f32);
    CHECK(fc.weight.grad().shape() == fc.weight.shape());
}

// ---------------------------------------------------------------- Conv2d

TEST_CASE("nn::Conv2d matches the functional op, with PyTorch's output sizes")
{
    manual_seed(5);
    Generator gen(6);
    const Tensor x = randn({2, 3, 8, 8}, f32, gen);
    nn::Conv2d same(3, 4, 3, 1, 1);
    CHECK(same.weight.shape() == Shape{4, 3, 3, 3});
    CHECK(same.bias.shape() == Shape{4});
    CHECK(same(x).shape() == Shape{2, 4, 8, 8});
    CHECK(same_values(same(x), conv2d(x, same.weight, same.bias, 1, 1)));

    nn::Conv2d strided(3, 5, {3, 2}, {2, 1}, {1, 0}, false);
    CHECK_FALSE(strided.bias.defined());
    CHECK(strided.weight.shape() == Shape{5, 3, 3, 2});
    CHECK(strided(x).shape() == Shape{2, 5, 4, 7});  // (8 + 2 - 3) / 2 + 1 = 4, (8 - 2) / 1 + 1 = 7
    CHECK(same_values(strided(x), conv2d(x, strided.weight, Tensor(), {2, 1}, {1, 0})));
}

TEST_CASE("nn::Conv2d init is U(-1/sqrt(fan_in), 1/sqrt(fan_in)) with fan_in = in * kh * kw, reproducible")
{
    manual_seed(7);
    nn::Conv2d a(8, 16, 3);
    check_uniform(a.weight, 1.0 / std::sqrt(8.0 * 9));
    check_uniform(a.bias, 1.0 / std::sqrt(8.0 * 9));
    manual_seed(7);
    nn::Conv2d b(8, 16, 3);
    CHECK(same_values(a.weight, b.weight));
    CHECK(same_values(a.bias, b.bias));
}

TEST_CASE("nn::Conv2d f64 gradients through the module by gradcheck")
{
    manual_seed(8);
    nn::Conv2d conv(2, 3, {3, 2}, {2, 1}, 1);
    conv.to(f64);
    Generator gen(9);
    check_module_gradients(conv, randn({2, 2, 5, 4}, f64, gen));
}

// ---------------------------------------------------------------- activations and Flatten

TEST_CASE("nn::ReLU and nn::GELU match their ops and have f64 gradients")
{
    Generator gen(10);
    const Tensor x = randn({3, 4}, f64, gen);
    nn::ReLU relu_layer;
    nn::GELU gelu_layer;
    CHECK(same_values(relu_layer(x), relu(x)));
    CHECK(same_values(gelu_layer(x), gelu(x)));
    CHECK(relu_layer.parameters().empty());
    for (nn::Module* m : std::vector<nn::Module*>{&relu_layer, &gelu_layer}) {
        INFO(m->type_name());
        const GradcheckResult r = gradcheck([m](const std::vector<Tensor>& in) { return (*m)(in[0]); }, {x.clone().requires_grad_()});
        INFO(r.report);
        CHECK(r.ok);
    }
}

TEST_CASE("nn::Flatten merges start_dim..end_dim as PyTorch and passes the gradient back")
{
    const Tensor x = arange(0.0, 120.0).reshape({2, 3, 4, 5});
    CHECK(nn::Flatten()(x).shape() == Shape{2, 60});
    CHECK(nn::Flatten(0, -1)(x).shape() == Shape{120});
    CHECK(nn::Flatten(1, 2)(x).shape() == Shape{2, 12, 5});
    CHECK(nn::Flatten(-2, -1)(x).shape() == Shape{2, 3, 20});
    CHECK(nn::Flatten(2, 2)(x).shape() == Shape{2, 3, 4, 5});
    CHECK(nn::Flatten(0)(scalar_tensor(3.0)).shape() == Shape{1});
    CHECK(nn::Flatten()(zeros({0, 3, 2})).shape() == Shape{0, 6});
    CHECK(nn::Flatten()(x).to_vector() == x.to_vector());  // row-major order kept
    CHECK(error_message([&] { nn::Flatten(2, 1)(x); }, ErrorKind::value).find("comes after end_dim") != std::string::npos);
    CHECK(error_message([&] { nn::Flatten(4)(x); }, ErrorKind::index).size() > 0);

    const Tensor leaf = randn({2, 3, 4}).requires_grad_();
    const Tensor y = nn::Flatten()(leaf);
    CHECK_FALSE(y.is_leaf());  // recorded: the reshape is an op
    sum(mul(y, arange(0.0, 24.0).reshape({2, 12}))).backward();
    CHECK(leaf.grad().shape() == Shape{2, 3, 4});
    CHECK(leaf.grad().to_vector() == arange(0.0, 24.0).to_vector());
}

// ---------------------------------------------------------------- Dropout

TEST_CASE("nn::Dropout is the identity in eval mode and for p = 0, and gives zeros for p = 1")
{
    const Tensor x = add(rand({4, 5}), 1.0);
    nn::Dropout half(0.5);
    half.eval();
    CHECK(half(x).is_same(x));
    nn::Dropout none(0.0);
    CHECK(none.is_training());
    CHECK(none(x).is_same(x));

    nn::Dropout all(1.0);
    const Tensor leaf = x.clone().requires_grad_();
    const Tensor y = all(leaf);
    CHECK(y.to_vector() == std::vector<double>(20, 0.0));
    sum(y).backward();
    CHECK(leaf.grad().to_vector() == std::vector<double>(20, 0.0));
}

TEST_CASE("nn::Dropout in training zeroes a fraction near p and scales survivors by exactly 1/(1-p)")
{
    const double p = 0.3;
    const std::int64_t n = 10000;
    nn::Dropout drop(p, 11);
    const Tensor x = add(rand({100, 100}), 0.5);  // no zeros of its own
    const Tensor y = drop(x);
    CHECK(y.shape() == x.shape());
    CHECK(y.dtype() == f32);
    CHECK(y.grad_fn() == nullptr);  // x needs no grad here
    const std::vector<double> xs = x.to_vector(), ys = y.to_vector();
    const float scale = float(1.0 / (1.0 - p));  // the mask's f32 value; mul rounds x * scale once
    std::int64_t zeros_seen = 0, wrong = 0;
    for (std::size_t i = 0; i < xs.size(); ++i) {
        if (ys[i] == 0) {
            ++zeros_seen;
        } else if (ys[i] != double(float(xs[i]) * scale)) {
            ++wrong;
        }
    }
    CHECK(wrong == 0);
    // The count of zeros is Binomial(n, p): allow 5 standard deviations either side.
    const double sd = std::sqrt(double(n) * p * (1 - p));
    INFO("zeros " << zeros_seen << ", expected " << double(n) * p << " +- " << 5 * sd);
    CHECK(std::abs(double(zeros_seen) - double(n) * p) <= 5 * sd);
}

TEST_CASE("nn::Dropout is a mul op: its gradient is the same mask, and it keeps low-precision dtypes")
{
    const double p = 0.5;
    nn::Dropout drop(p, 12);
    const Tensor x = add(rand({50}), 1.0).requires_grad_();
    const Tensor y = drop(x);
    CHECK(y.grad_fn_name() == "mul");
    sum(y).backward();
    const std::vector<double> ys = y.to_vector(), g = x.grad().to_vector();
    int dropped = 0;
    for (std::size_t i = 0; i < ys.size(); ++i) {
        CHECK(g[i] == (ys[i] == 0 ? 0.0 : 1.0 / (1.0 - p)));
        dropped += ys[i] == 0;
    }
    CHECK(dropped > 0);
    CHECK(dropped < 50);

    for (DType d : {bf16, f16, f64}) {
        INFO(dtype_name(d));
        CHECK(nn::Dropout(0.5, 1)(ones({8}, d)).dtype() == d);
    }
    CHECK(error_message([] { nn::Dropout(0.5)(ones({3}, i64)); }, ErrorKind::dtype).find("floating point") != std::string::npos);
}

TEST_CASE("nn::Dropout masks are reproducible: the same seed gives the same mask")
{
    const Tensor x = ones({200});
    nn::Dropout a(0.5, 42), b(0.5, 42), c(0.5, 43);
    const Tensor ya = a(x);
    CHECK(same_values(ya, b(x)));
    CHECK_FALSE(same_values(ya, c(x)));
    CHECK_FALSE(same_values(ya, a(x)));  // its own generator moved on: the next mask differs

    // Without a seed, masks come from default_generator(): manual_seed makes them again.
    nn::Dropout unseeded(0.5);
    manual_seed(13);
    const Tensor first = unseeded(x);
    manual_seed(13);
    CHECK(same_values(first, unseeded(x)));
}

TEST_CASE("nn::Dropout refuses p outside 0..1 with PyTorch's message")
{
    CHECK(error_message([] { nn::Dropout(1.5); }, ErrorKind::value) == "dropout probability has to be between 0 and 1, but got 1.5");
    CHECK(error_message([] { nn::Dropout(-0.1); }, ErrorKind::value) == "dropout probability has to be between 0 and 1, but got -0.1");
}

TEST_CASE("nn::Sequential of layers runs them in order and trains under autocast")
{
    manual_seed(14);
    auto model = std::make_shared<nn::Sequential>();
    model->emplace_back<nn::Conv2d>(1, 4, 3, 1, 1);
    model->emplace_back<nn::ReLU>();
    model->emplace_back<nn::Flatten>();
    model->emplace_back<nn::Linear>(4 * 4 * 4, 3);
    const Tensor x = randn({2, 1, 4, 4});
    const auto conv = std::dynamic_pointer_cast<nn::Conv2d>((*model)[0]);
    const auto fc = std::dynamic_pointer_cast<nn::Linear>((*model)[3]);
    const Tensor by_hand = linear(relu(conv2d(x, conv->weight, conv->bias, 1, 1)).reshape({2, 64}), fc->weight, fc->bias);
    CHECK(same_values((*model)(x), by_hand));

    Tensor loss;
    {
        amp::autocast region("cpu");
        loss = cross_entropy((*model)(x), tensor({0, 2}, {2}, i64));
    }
    loss.backward();
    for (const Tensor& p : model->parameters()) {
        CHECK(p.dtype() == f32);
        REQUIRE(p.grad().defined());
        CHECK(p.grad().dtype() == f32);
    }
}
