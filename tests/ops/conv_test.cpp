// conv2d: values against the definition, gradients of input, weight and bias by gradcheck in f64,
// f16/bf16/f32 results against f64 on the same rounded inputs, backward in the forward's dtype,
// errors.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <set>
#include <string>

#include <tinyamp/tinyamp.h>

#include "tests/support/expect_error.h"
#include "tests/support/graph_checks.h"
#include "tests/support/tolerance.h"

using namespace tinyamp;
using tinyamp::test::check_close;
using tinyamp::test::check_graph_dtype;
using tinyamp::test::error_message;

namespace {

Tensor random(const Shape& shape, std::uint64_t seed)
{
    Generator gen(seed);
    return randn(shape, f64, gen);
}

Tensor abs_of(const Tensor& x) { return where(lt(x, 0.0), neg(x), x); }

double max_of(const Tensor& x)
{
    double m = 0;
    for (double v : x.to_vector()) m = std::max(m, std::abs(v));
    return m;
}

// y[n, o, oy, ox] = bias[o] + sum over c, ki, kj of x[n, c, oy*sh - ph + ki, ox*sw - pw + kj] * w[o, c, ki, kj]
// (terms outside the input are 0), in f64.
Tensor conv2d_by_definition(const Tensor& x, const Tensor& w, const Tensor& bias, Size2d stride, Size2d pad)
{
    const std::int64_t n_ = x.size(0), c_ = x.size(1), h = x.size(2), wd = x.size(3), o_ = w.size(0), kh = w.size(2), kw = w.size(3);
    const std::int64_t oh = (h + 2 * pad.height - kh) / stride.height + 1, ow = (wd + 2 * pad.width - kw) / stride.width + 1;
    const std::vector<double> xv = x.to_vector(), wv = w.to_vector();
    std::vector<double> out;
    for (std::int64_t n = 0; n < n_; ++n)
        for (std::int64_t o = 0; o < o_; ++o)
            for (std::int64_t oy = 0; oy < oh; ++oy)
                for (std::int64_t ox = 0; ox < ow; ++ox) {
                    double total = bias.defined() ? bias.at({o}) : 0.0;
                    for (std::int64_t c = 0; c < c_; ++c)
                        for (std::int64_t ki = 0; ki < kh; ++ki)
                            for (std::int64_t kj = 0; kj < kw; ++kj) {
                                const std::int64_t iy = oy * stride.height - pad.height + ki, ix = ox * stride.width - pad.width + kj;
                                if (iy < 0 || iy >= h || ix < 0 || ix >= wd) continue;
                                total += xv[std::size_t(((n * c_ + c) * h + iy) * wd + ix)] *
                                         wv[std::size_t(((o * c_ + c) * kh + ki) * kw + kj)];
                            }
                    out.push_back(total);
                }
    return tensor(out, {n_, o_, oh, ow}, f64);
}

struct ConvCase {
    Shape input, weight;
    bool bias;
    Size2d stride, padding;
};

std::string describe(const ConvCase& c)
{
    return detail::concat("input ", shape_str(c.input), ", weight ", shape_str(c.weight), c.bias ? ", bias" : ", no bias", ", stride (",
                          c.stride.height, ", ", c.stride.width, "), padding (", c.padding.height, ", ", c.padding.width, ")");
}

// Square and rectangular kernels and inputs, strides 1 to 3, zero and non-zero padding, 1x1 kernels,
// a kernel as large as the padded input.
const std::vector<ConvCase> kCases = {
    {{2, 3, 5, 5}, {4, 3, 3, 3}, true, 1, 0},
    {{1, 2, 6, 5}, {3, 2, 3, 2}, true, {2, 1}, {1, 0}},
    {{2, 1, 7, 6}, {2, 1, 2, 3}, false, {3, 2}, {2, 1}},
    {{1, 2, 4, 4}, {2, 2, 1, 1}, true, 2, 0},
    {{2, 2, 3, 3}, {1, 2, 3, 3}, true, 1, 1},
    {{1, 1, 2, 2}, {2, 1, 4, 4}, true, 1, 1},
};

struct ConvInputs {
    Tensor x, w, b;
};

ConvInputs make_inputs(const ConvCase& c, std::uint64_t seed)
{
    return {random(c.input, seed), random(c.weight, seed + 1), c.bias ? random({c.weight[0]}, seed + 2) : Tensor()};
}

using Op = std::function<Tensor(const std::vector<Tensor>&)>;

Op conv_op(const ConvCase& c)
{
    return [c](const std::vector<Tensor>& in) { return conv2d(in[0], in[1], in[2], c.stride, c.padding); };
}

}  // namespace

TEST_CASE("conv2d equals the definition of a cross-correlation")
{
    std::uint64_t seed = 10;
    for (const ConvCase& c : kCases) {
        INFO(describe(c));
        const auto [x, w, b] = make_inputs(c, seed += 3);
        const Tensor y = conv2d(x, w, b, c.stride, c.padding);
        const Tensor expected = conv2d_by_definition(x, w, b, c.stride, c.padding);
        // f64 in another summation order: each of the C*kh*kw + 1 additions rounds once.
        const std::int64_t k = c.weight[1] * c.weight[2] * c.weight[3];
        const Tensor magnitude = conv2d_by_definition(abs_of(x), abs_of(w), b.defined() ? abs_of(b) : b, c.stride, c.padding);
        check_close(y, expected, f64, double(k) + 2.0, max_of(magnitude));
    }
    // One 2x2 image, a 2x2 kernel of ones: the sum of the image, plus the bias.
    const Tensor y = conv2d(tensor({1, 2, 3, 4}, {1, 1, 2, 2}), ones({1, 1, 2, 2}), tensor({0.5}));
    CHECK(y.shape() == Shape{1, 1, 1, 1});
    CHECK(y.item() == 10.5);
}

TEST_CASE("conv2d takes one number or a pair for stride and padding")
{
    const Tensor x = random({1, 2, 6, 6}, 1), w = random({3, 2, 3, 3}, 2), b = random({3}, 3);
    CHECK(conv2d(x, w, b, 2, 1).to_vector() == conv2d(x, w, b, {2, 2}, {1, 1}).to_vector());
    CHECK(conv2d(x, w).shape() == Shape{1, 3, 4, 4});
    CHECK(conv2d(x, w, b, {1, 2}, {0, 1}).shape() == Shape{1, 3, 4, 3});
    CHECK(conv2d(ones({0, 2, 6, 6}, f64), w, b).shape() == Shape{0, 3, 4, 4});  // an empty batch
}

TEST_CASE("conv2d: f64 gradients of input, weight and bias")
{
    std::uint64_t seed = 100;
    for (const ConvCase& c : kCases) {
        INFO(describe(c));
        const auto [x, w, b] = make_inputs(c, seed += 3);
        std::vector<Tensor> inputs{x.requires_grad_(), w.requires_grad_(), b.defined() ? b.requires_grad_() : b};
        const GradcheckResult r = gradcheck(conv_op(c), inputs);
        INFO(r.report);
        CHECK(r.ok);
    }
}

TEST_CASE("conv2d: f16 and bf16 results within the dtype tolerance of f64")
{
    std::uint64_t seed = 200;
    for (const ConvCase& c : kCases) {
        const auto [x64, w64, b64] = make_inputs(c, seed += 3);
        for (DType d : {f16, bf16, f32}) {
            INFO(describe(c) << " in " << std::string(dtype_name(d)));
            const Tensor x = x64.to(d), w = w64.to(d), b = b64.defined() ? b64.to(d) : b64;
            const Tensor y = conv2d(x, w, b, c.stride, c.padding);
            CHECK(y.dtype() == d);
            const Tensor xe = x.to(f64), we = w.to(f64), be = b.defined() ? b.to(f64) : b;
            // Errors scale with the f64 result on |inputs|. f16/bf16 accumulate in f32, far below
            // one of their ulps of that for these sums: 2 ulps cover the final rounding. f32 sums
            // its k = C*kh*kw products and the bias in f32: within k + 2 ulps.
            const std::int64_t k = c.weight[1] * c.weight[2] * c.weight[3];
            const double ulps = d == f32 ? double(k) + 2.0 : 2.0;
            const Tensor magnitude = conv2d(abs_of(xe), abs_of(we), be.defined() ? abs_of(be) : be, c.stride, c.padding);
            check_close(y, conv2d(xe, we, be, c.stride, c.padding), d, ulps, max_of(magnitude));
        }
    }
}

TEST_CASE("conv2d is one node, and its backward runs in bf16 for bf16 inputs")
{
    const ConvCase c{{2, 2, 5, 4}, {3, 2, 3, 2}, true, {2, 1}, 1};
    const auto [x64, w64, b64] = make_inputs(c, 7);
    const std::vector<Tensor> in{x64.to(bf16).requires_grad_(), w64.to(bf16).requires_grad_(), b64.to(bf16).requires_grad_()};
    const Tensor y = conv2d(in[0], in[1], in[2], c.stride, c.padding);
    REQUIRE(y.grad_fn());
    CHECK(y.grad_fn_name() == "conv2d");
    CHECK(y.grad_fn()->output.dtype == bf16);
    for (std::size_t i = 0; i < in.size(); ++i) {
        CHECK(y.grad_fn()->inputs[i].dtype == bf16);
        CHECK(y.grad_fn()->next_edges[i].node->name() == "AccumulateGrad");
    }
    backward({y}, {ones_like(y)}, false, /*create_graph=*/true);
    for (const Tensor& t : in) {
        REQUIRE(t.grad().defined());
        CHECK(t.grad().dtype() == bf16);
        CHECK(t.grad().shape() == t.shape());
        check_graph_dtype(t.grad(), bf16);
    }
}

namespace {

// The gradients conv2d's backward gives for (input, weight, bias) along dY = v, as differentiable
// functions of the inputs: its node is applied by hand with grad mode on, so the backward's own
// ops (im2col, col2im, mm, ...) are recorded. Inputs that do not require grad (gradcheck's
// finite-difference probes) get a requiring copy so that the node is recorded at all.
std::vector<Tensor> conv2d_gradients(const std::vector<Tensor>& in, const ConvCase& c, const Tensor& v)
{
    GradModeGuard grad_on(true);
    std::vector<Tensor> leaves;
    for (const Tensor& t : in) leaves.push_back(!t.defined() || t.requires_grad() ? t : t.detach().requires_grad_());
    const Tensor y = conv2d(leaves[0], leaves[1], leaves[2], c.stride, c.padding);
    return y.grad_fn()->apply(v);
}

}  // namespace

TEST_CASE("conv2d's backward can be differentiated again: f64 gradients of its gradients")
{
    for (const ConvCase& c : {kCases[1], kCases[2]}) {
        INFO(describe(c));
        const auto [x, w, b] = make_inputs(c, 31);
        const Tensor v = random(conv2d(x, w, b, c.stride, c.padding).shape(), 34);
        // The input's gradient col2im(W^T v) depends on the weight through col2im and mm ...
        const GradcheckResult by_weight =
            gradcheck([&](const std::vector<Tensor>& in) { return conv2d_gradients(in, c, v)[0]; }, {x, w.detach().requires_grad_(), b});
        INFO(by_weight.report);
        CHECK(by_weight.ok);
        // ... and the weight's gradient v im2col(x)^T on the input through im2col.
        const GradcheckResult by_input =
            gradcheck([&](const std::vector<Tensor>& in) { return conv2d_gradients(in, c, v)[1]; }, {x.detach().requires_grad_(), w, b});
        INFO(by_input.report);
        CHECK(by_input.ok);
    }
}

TEST_CASE("conv2d errors name the shapes")
{
    const Tensor x = ones({2, 3, 8, 8}), w = ones({4, 3, 3, 3});
    CHECK(error_message(
              [] {
                  conv2d(ones({3, 8, 8}), ones({4, 3, 3, 3}));
              },
              ErrorKind::shape) ==
          "conv2d: expected input of shape [N, C, H, W], but got shape [3, 8, 8]; for one image add the batch dimension with unsqueeze(0)");
    CHECK(error_message(
              [&] {
                  conv2d(x, ones({4, 3, 3}));
              },
              ErrorKind::shape)
              .find("expected weight of shape [out_channels, in_channels, kh, kw]") != std::string::npos);
    CHECK(error_message(
              [&] {
                  conv2d(x, ones({4, 5, 3, 3}));
              },
              ErrorKind::shape) ==
          "conv2d: input of shape [2, 3, 8, 8] has 3 channels, but weight of shape [4, 5, 3, 3] expects 5 (its second dimension)");
    CHECK(error_message([&] { conv2d(x, w, ones({3})); }, ErrorKind::shape) ==
          "conv2d: bias of shape [3] does not fit weight of shape [4, 3, 3, 3]: it must have shape [4] (one per output channel)");
    CHECK(error_message(
              [&] {
                  conv2d(ones({1, 3, 2, 2}), w);
              },
              ErrorKind::shape) ==
          "conv2d: the kernel [3, 3] (weight of shape [4, 3, 3, 3]) is larger than the padded input [2, 2] (input of shape [1, 3, 2, 2], "
          "padding [0, 0]); pad more or use a smaller kernel");
    CHECK(error_message([&] { conv2d(x, w, Tensor(), {0, 1}); }, ErrorKind::value) == "conv2d: stride must be at least 1, but got [0, 1]");
    CHECK(error_message([&] { conv2d(x, w, Tensor(), 1, -1); }, ErrorKind::value) ==
          "conv2d: padding must not be negative, but got [-1, -1]");
}

TEST_CASE("conv2d refuses mixed dtypes and integers")
{
    CHECK(error_message(
              [] {
                  conv2d(ones({1, 1, 3, 3}, f32), ones({1, 1, 2, 2}, f16));
              },
              ErrorKind::dtype)
              .find("conv2d: input and weight must have the same dtype, but got f32 and f16") == 0);
    CHECK(error_message(
              [] {
                  conv2d(ones({1, 1, 3, 3}, bf16), ones({1, 1, 2, 2}, bf16), ones({1}, f32));
              },
              ErrorKind::dtype)
              .find("conv2d: input, weight and bias must have the same dtype, but got bf16, bf16 and f32") == 0);
    CHECK(error_message(
              [] {
                  conv2d(ones({1, 1, 3, 3}, i64), ones({1, 1, 2, 2}, i64));
              },
              ErrorKind::dtype)
              .find("floating point") != std::string::npos);
}
