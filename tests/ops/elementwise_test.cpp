// Elementwise ops: gradients by gradcheck in f64; f16/bf16 results within the dtype tolerance of
// f64; PyTorch's type promotion and broadcasting; errors.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <string>

#include <tinyamp/tinyamp.h>

#include "tests/support/expect_error.h"
#include "tests/support/tolerance.h"

using namespace tinyamp;
using tinyamp::test::check_close;
using tinyamp::test::error_message;

namespace {

using Unary = std::function<Tensor(const Tensor&)>;
using Binary = std::function<Tensor(const Tensor&, const Tensor&)>;

// Inputs away from every op's edge (log/sqrt need x > 0, relu's kink at 0).
Tensor positive_input(const Shape& shape, std::uint64_t seed)
{
    Generator gen(seed);
    return add(mul(rand(shape, f64, gen), 2.0), 0.25);
}

Tensor signed_input(const Shape& shape, std::uint64_t seed)
{
    Generator gen(seed);
    Tensor x = randn(shape, f64, gen);
    return add(x, mul(sub(gt(x, 0.0).to(f64), 0.5), 0.2));  // push values at least 0.1 away from 0
}

void check_unary_gradient(const char* name, const Unary& op, const Tensor& x)
{
    INFO(std::string(name));
    const GradcheckResult r = gradcheck([&](const std::vector<Tensor>& in) { return op(in[0]); }, {x.requires_grad_()});
    INFO(r.report);
    CHECK(r.ok);
}

// The op on f16/bf16 inputs vs the op in f64 on those same rounded inputs.
void check_unary_low_precision(const char* name, const Unary& op, const Tensor& x64)
{
    for (DType d : {f16, bf16, f32}) {
        INFO(std::string(name) << " in " << std::string(dtype_name(d)));
        const Tensor x = x64.to(d);
        const Tensor y = op(x);
        CHECK(y.dtype() == d);
        check_close(y, op(x.to(f64)), d);
    }
}

}  // namespace

TEST_CASE("unary math ops: f64 gradients, and f16/bf16 results within 2 ulps of f64")
{
    const std::vector<std::pair<const char*, Unary>> positive_domain = {
        {"exp", [](const Tensor& x) { return exp(x); }},   {"log", [](const Tensor& x) { return log(x); }},
        {"sqrt", [](const Tensor& x) { return sqrt(x); }}, {"pow 1.5", [](const Tensor& x) { return pow(x, 1.5); }},
        {"pow -2", [](const Tensor& x) { return pow(x, -2.0); }},
    };
    const std::vector<std::pair<const char*, Unary>> any_sign = {
        {"neg", [](const Tensor& x) { return neg(x); }},         {"tanh", [](const Tensor& x) { return tanh(x); }},
        {"sigmoid", [](const Tensor& x) { return sigmoid(x); }}, {"erf", [](const Tensor& x) { return erf(x); }},
        {"relu", [](const Tensor& x) { return relu(x); }},       {"gelu", [](const Tensor& x) { return gelu(x); }},
        {"pow 2", [](const Tensor& x) { return pow(x, 2.0); }},  {"pow 3", [](const Tensor& x) { return pow(x, 3.0); }},
    };
    for (const auto& [name, op] : positive_domain) {
        check_unary_gradient(name, op, positive_input({3, 4}, 1));
        check_unary_low_precision(name, op, positive_input({64}, 2));
    }
    for (const auto& [name, op] : any_sign) {
        check_unary_gradient(name, op, signed_input({3, 4}, 3));
        check_unary_low_precision(name, op, signed_input({64}, 4));
    }
}

TEST_CASE("unary ops at known points")
{
    CHECK(gelu(tensor({1.0}, f64)).item() == doctest::Approx(0.8413447460685429).epsilon(1e-15));
    CHECK(sigmoid(tensor({-1000.0, 1000.0}, f32)).to_vector() == std::vector<double>{0.0, 1.0});  // no overflow to NaN
    CHECK(relu(tensor({-2.0, 0.0, 3.0}, i64)).to_vector() == std::vector<double>{0, 0, 3});
    CHECK(relu(tensor({-2.0, 3.0}, i64)).dtype() == i64);
    CHECK(exp(tensor({0.0, 1.0}, i64)).dtype() == f32);  // integer inputs compute in f32, as in PyTorch
}

TEST_CASE("gelu_backward: one op with its own f64 gradient (gelu's second derivative), and its errors")
{
    const Tensor grad = signed_input({3, 4}, 5).requires_grad_(), x = signed_input({3, 4}, 6).requires_grad_();
    const GradcheckResult r = gradcheck([](const std::vector<Tensor>& in) { return gelu_backward(in[0], in[1]); }, {grad, x});
    INFO(r.report);
    CHECK(r.ok);
    // gelu's backward is gelu_backward: the gradient of gelu equals it, in f32 as in f64.
    for (DType d : {f64, f32}) {
        const Tensor xd = x.detach().to(d).requires_grad_(), seed = full({3, 4}, 0.75, d);
        gelu(xd).backward(seed);
        CHECK(xd.grad().to_vector() == gelu_backward(seed, xd.detach()).to_vector());
    }
    CHECK(error_message([] { gelu_backward(ones({2}), ones({3})); }, ErrorKind::shape)
              == "gelu_backward: grad has shape [2] but x has [3]; they must be the same");
    CHECK(error_message([] { gelu_backward(ones({2}), ones({2}, i64)); }, ErrorKind::dtype)
              == "gelu_backward: x must be a float tensor, got i64");
}

TEST_CASE("threshold_backward: relu's backward as one op, with its own f64 gradient for grad")
{
    const Tensor grad = signed_input({3, 4}, 7).requires_grad_(), x = signed_input({3, 4}, 8);
    const GradcheckResult r = gradcheck([&](const std::vector<Tensor>& in) { return threshold_backward(in[0], x, 0.25); }, {grad});
    INFO(r.report);
    CHECK(r.ok);
    CHECK(threshold_backward(tensor({1.0, 2.0, 3.0, 4.0}, f32), tensor({-1.0, 0.0, 0.5, 2.0}, f32), 0.0).to_vector() ==
          std::vector<double>{0.0, 0.0, 3.0, 4.0});  // x == 0 passes nothing, as PyTorch's relu
    for (DType d : {f64, f32, bf16}) {
        const Tensor xd = x.detach().to(d).requires_grad_(), seed = full({3, 4}, 0.5, d);
        relu(xd).backward(seed);
        CHECK(xd.grad().dtype() == d);
        CHECK(xd.grad().to_vector() == threshold_backward(seed, xd.detach(), 0.0).to_vector());
    }
    CHECK(error_message([] { threshold_backward(ones({2}), ones({2}, boolean), 0.0); }, ErrorKind::dtype)
          == "threshold_backward takes number tensors, got f32 and bool");
}

TEST_CASE("binary arithmetic: f64 gradients through broadcasting")
{
    const std::vector<std::pair<const char*, Binary>> ops = {
        {"add", [](const Tensor& a, const Tensor& b) { return add(a, b); }},
        {"sub", [](const Tensor& a, const Tensor& b) { return sub(a, b); }},
        {"mul", [](const Tensor& a, const Tensor& b) { return mul(a, b); }},
        {"div", [](const Tensor& a, const Tensor& b) { return div(a, b); }},
        {"pow", [](const Tensor& a, const Tensor& b) { return pow(a, b); }},
    };
    for (const auto& [name, op] : ops) {
        for (const auto& [sa, sb] : std::vector<std::pair<Shape, Shape>>{{{2, 3}, {2, 3}}, {{2, 3}, {3}}, {{4, 1}, {1, 3}}, {{2, 3}, {}}}) {
            INFO(std::string(name) << " " << shape_str(sa) << " with " << shape_str(sb));
            const Tensor a = positive_input(sa, 5).requires_grad_();
            const Tensor b = positive_input(sb, 6).requires_grad_();
            const GradcheckResult r = gradcheck([&](const std::vector<Tensor>& in) { return op(in[0], in[1]); }, {a, b});
            INFO(r.report);
            CHECK(r.ok);
        }
    }
}

TEST_CASE("binary arithmetic: f16/bf16 results within 2 ulps of f64")
{
    const Tensor a64 = positive_input({5, 7}, 7), b64 = signed_input({7}, 8);
    for (DType d : {f16, bf16}) {
        const Tensor a = a64.to(d), b = b64.to(d);
        const Tensor a_exact = a.to(f64), b_exact = b.to(f64);
        check_close(add(a, b), add(a_exact, b_exact), d);
        check_close(sub(a, b), sub(a_exact, b_exact), d);
        check_close(mul(a, b), mul(a_exact, b_exact), d);
        check_close(div(a, b), div(a_exact, b_exact), d);
        check_close(pow(a, b), pow(a_exact, b_exact), d);
    }
}

TEST_CASE("type promotion matches PyTorch")
{
    const Tensor h = ones({2}, f16), b = ones({2}, bf16), f = ones({2}, f32), d = ones({2}, f64), n = ones({2}, i64);
    CHECK(add(h, f).dtype() == f32);
    CHECK(add(h, b).dtype() == f32);  // f16 with bf16: neither holds the other
    CHECK(mul(b, f).dtype() == f32);
    CHECK(add(f, d).dtype() == f64);
    CHECK(add(n, h).dtype() == f16);
    CHECK(add(n, n).dtype() == i64);
    CHECK(div(n, n).dtype() == f32);  // true division
    CHECK(add(h, 2.5).dtype() == f16);  // a plain number never widens a float tensor
    CHECK(add(n, 2.5).dtype() == f32);
    CHECK(add(n, 2.0).dtype() == i64);
    CHECK(add(h, scalar_tensor(1.0, f64)).dtype() == f16);  // a 0-D tensor of the same category does not either
    CHECK(add(n, scalar_tensor(1.0, f64)).dtype() == f64);  // ... unless it brings a higher category
    CHECK(add(scalar_tensor(1.0, f16), scalar_tensor(1.0, f32)).dtype() == f32);  // two 0-D tensors: plain promotion
    CHECK(add(ones({2}, boolean), ones({2}, f16)).dtype() == f16);
    CHECK(gt(h, f).dtype() == boolean);
}

TEST_CASE("broadcasting follows PyTorch's right-aligned rule")
{
    const Tensor a = arange(0.0, 6.0, 1.0).reshape({2, 3});
    const Tensor row = tensor({10.0, 20.0, 30.0});
    const Tensor col = tensor({100.0, 200.0}).reshape({2, 1});
    CHECK(add(a, row).to_vector() == std::vector<double>{10, 21, 32, 13, 24, 35});
    CHECK(add(a, col).to_vector() == std::vector<double>{100, 101, 102, 203, 204, 205});
    CHECK(add(col, row).shape() == Shape{2, 3});
    CHECK(add(ones({4, 1, 3}), ones({2, 1})).shape() == Shape{4, 2, 3});
    const std::string message = error_message([&] { add(ones({2, 3}), ones({4})); }, ErrorKind::shape);
    CHECK(message == "shapes [2, 3] and [4] cannot be broadcast together: dimension -1 has sizes 3 and 4 (sizes must be equal, or one of them 1)");
}

TEST_CASE("the gradient of a broadcast input is summed back to its shape, and a mixed-dtype input gets its own dtype back")
{
    const Tensor w = ones({3}, f16).requires_grad_();
    const Tensor x = arange(0.0, 6.0, 1.0, f32).reshape({2, 3}).requires_grad_();
    sum(mul(x, w)).backward();
    CHECK(w.grad().dtype() == f16);
    CHECK(w.grad().shape() == Shape{3});
    CHECK(w.grad().to_vector() == std::vector<double>{3, 5, 7});
    CHECK(x.grad().dtype() == f32);
    CHECK(x.grad().to_vector() == std::vector<double>{1, 1, 1, 1, 1, 1});
}

TEST_CASE("where picks elementwise and routes gradients to the chosen side")
{
    const Tensor a = tensor({1.0, 2.0, 3.0}, f64).requires_grad_();
    const Tensor b = tensor({10.0, 20.0, 30.0}, f64).requires_grad_();
    const Tensor cond = tensor({1.0, 0.0, 1.0}, boolean);
    const Tensor y = where(cond, a, b);
    CHECK(y.to_vector() == std::vector<double>{1, 20, 3});
    sum(y).backward();
    CHECK(a.grad().to_vector() == std::vector<double>{1, 0, 1});
    CHECK(b.grad().to_vector() == std::vector<double>{0, 1, 0});
    CHECK(error_message([&] { where(a, a, b); }, ErrorKind::dtype).find("needs a bool condition") != std::string::npos);
}

TEST_CASE("comparisons give bool tensors without gradients")
{
    const Tensor a = tensor({1.0, 2.0, 3.0}).requires_grad_();
    const Tensor c = lt(a, 2.5);
    CHECK(c.dtype() == boolean);
    CHECK_FALSE(c.requires_grad());
    CHECK(c.to_vector() == std::vector<double>{1, 1, 0});
    CHECK(eq(tensor({1.0, 2.0}, i64), tensor({1.0, 5.0}, i64)).to_vector() == std::vector<double>{1, 0});
    CHECK(ge(a, a).to_vector() == std::vector<double>{1, 1, 1});
    CHECK(ne(a, 2.0).to_vector() == std::vector<double>{1, 0, 1});
}

TEST_CASE("operators read like math")
{
    const Tensor x = tensor({1.0, 2.0});
    CHECK((2.0 * x + 1.0).to_vector() == std::vector<double>{3, 5});
    CHECK((1.0 - x).to_vector() == std::vector<double>{0, -1});
    CHECK((x / 2.0).to_vector() == std::vector<double>{0.5, 1});
    CHECK((2.0 / x).to_vector() == std::vector<double>{2, 1});
    CHECK((-x).to_vector() == std::vector<double>{-1, -2});
    CHECK((x * x - x).to_vector() == std::vector<double>{0, 2});
}

TEST_CASE("elementwise errors say what to do")
{
    const Tensor flags = ones({2}, boolean);
    CHECK(error_message([&] { add(flags, flags); }, ErrorKind::dtype).find("convert one with .to(i64) or .to(f32)") != std::string::npos);
    CHECK(error_message([&] { neg(flags); }, ErrorKind::dtype).find("neg of a bool tensor") != std::string::npos);
}

TEST_CASE("sub refuses a bool tensor on either side, as PyTorch does (add and mul refuse only two)")
{
    const Tensor flags = ones({2}, boolean), x = ones({2}, f32);
    CHECK(error_message([&] { sub(flags, x); }, ErrorKind::dtype).find("sub with a bool tensor is not supported") != std::string::npos);
    CHECK(error_message([&] { sub(x, flags); }, ErrorKind::dtype).find("eq(mask, false)") != std::string::npos);
    CHECK(error_message([&] { sub(1.0, flags); }, ErrorKind::dtype).find("bool") != std::string::npos);
    CHECK(error_message([&] { sub(flags, 1.0); }, ErrorKind::dtype).find("bool") != std::string::npos);
    CHECK(add(flags, x).dtype() == f32);
}

TEST_CASE("where takes a plain number and bool operands, as PyTorch: masking scores with -inf keeps their dtype")
{
    const Tensor keep = tensor({1, 0, 0, 1, 1, 0}, {2, 3}, boolean);
    for (DType d : {f64, f32, f16, bf16}) {
        INFO(dtype_name(d));
        const Tensor scores = tensor({1, 2, 3, 4, 5, 6}, {2, 3}, d);
        const Tensor y = where(keep, scores, -INFINITY);
        CHECK(y.dtype() == d);
        CHECK(y.to_vector() == std::vector<double>{1, -INFINITY, -INFINITY, 4, 5, -INFINITY});
        CHECK(where(keep, 0.5, scores).to_vector() == std::vector<double>{0.5, 2, 3, 0.5, 0.5, 6});
        // A 0-D f32 tensor does not widen a tensor with dimensions (PyTorch's promotion).
        CHECK(where(keep, scores, full({}, -INFINITY)).dtype() == d);
    }
    // Two bool operands give a bool result (before, this was refused as arithmetic on bools).
    const Tensor flags = tensor({1, 1, 0, 0, 1, 0}, {2, 3}, boolean);
    const Tensor both = where(keep, flags, ones({}, boolean));
    CHECK(both.dtype() == boolean);
    CHECK(both.to_vector() == std::vector<double>{1, 1, 1, 0, 1, 1});
    // next to a bool tensor, -inf acts as an f32 number
    CHECK(where(keep, flags, -INFINITY).dtype() == f32);
    // The number gets no gradient; the tensor gets it where chosen.
    const Tensor x = tensor({1, 2, 3, 4, 5, 6}, {2, 3}, f64).requires_grad_();
    sum(where(keep, x, -1.0)).backward();
    CHECK(x.grad().to_vector() == std::vector<double>{1, 0, 0, 1, 1, 0});
}

TEST_CASE("masked_fill puts the value where the mask is true, broadcasting as PyTorch, in x's dtype")
{
    const Tensor x = tensor({1, 2, 3, 4, 5, 6}, {2, 3});
    const Tensor row_mask = tensor({0, 1, 0}, {3}, boolean);  // broadcast over the rows
    CHECK(masked_fill(x, row_mask, 9.0).to_vector() == std::vector<double>{1, 9, 3, 4, 9, 6});
    for (DType d : {f16, bf16}) {
        const Tensor y = masked_fill(x.to(d), row_mask, -INFINITY);
        CHECK(y.dtype() == d);
        CHECK(y.to_vector() == std::vector<double>{1, -INFINITY, 3, 4, -INFINITY, 6});
    }
    CHECK(masked_fill(x.to(f16), row_mask, 1e6).at({0, 1}) == INFINITY);  // rounded once into f16: past 65504
    const Tensor ints = masked_fill(tensor({1, 2, 3}, i64), tensor({1, 0, 1}, boolean), 7.0);
    CHECK(ints.dtype() == i64);
    CHECK(ints.to_vector() == std::vector<double>{7, 2, 7});
    CHECK(masked_fill(tensor({0, 0}, boolean), tensor({1, 0}, boolean), 1.0).to_vector() == std::vector<double>{1, 0});
    // Out of place, x broadcasts to the mask too (torch.masked_fill expands both).
    const Tensor v = tensor({1, 2, 3}, f64).requires_grad_();
    const Tensor wide = masked_fill(v, tensor({1, 0, 0, 0, 0, 1}, {2, 3}, boolean), 0.0);
    CHECK(wide.shape() == Shape{2, 3});
    CHECK(wide.to_vector() == std::vector<double>{0, 2, 3, 1, 2, 0});
    sum(wide).backward();
    CHECK(v.grad().to_vector() == std::vector<double>{1, 2, 1});  // summed back to [3], zero where masked
}

TEST_CASE("masked_fill: f64 gradients by gradcheck, zero where masked")
{
    Generator gen(11);
    const Tensor x = randn({3, 4}, f64, gen).requires_grad_();
    const Tensor mask = gt(rand({3, 4}, f32, gen), 0.5);
    const Tensor causal = triu(ones({4, 4}, boolean), 1);
    const GradcheckResult r = gradcheck([&](const std::vector<Tensor>& in) { return masked_fill(in[0], mask, -3.0); }, {x});
    INFO(r.report);
    CHECK(r.ok);
    const Tensor square = randn({2, 4, 4}, f64, gen).requires_grad_();
    const GradcheckResult rc = gradcheck([&](const std::vector<Tensor>& in) { return masked_fill(in[0], causal, 0.25); }, {square});
    INFO(rc.report);
    CHECK(rc.ok);
    sum(masked_fill(x, mask, 5.0)).backward();
    CHECK(x.grad().to_vector() == eq(mask, false).to(f64).to_vector());
}

TEST_CASE("masked_fill errors say what to do")
{
    const Tensor x = ones({2, 2});
    CHECK(error_message([&] { masked_fill(x, ones({2, 2}), 0.0); }, ErrorKind::dtype).find("needs a bool mask") != std::string::npos);
    CHECK(error_message([&] { masked_fill(ones({2}, i64), ones({2}, boolean), -INFINITY); }, ErrorKind::value).find("convert x with .to(f32)") !=
          std::string::npos);
    CHECK(error_message([&] { masked_fill(x, ones({3}, boolean), 0.0); }, ErrorKind::shape).size() > 0);
}
