// cat and stack: values, PyTorch's type promotion across the list, f64 gradients, the dtype of
// each input's gradient, and errors that name the offending tensor.
#include <doctest/doctest.h>

#include <functional>
#include <string>

#include <tinyamp/tinyamp.h>

#include "tests/support/expect_error.h"
#include "tests/support/tolerance.h"

using namespace tinyamp;
using tinyamp::test::check_close;
using tinyamp::test::error_message;

namespace {

Tensor counting(const Shape& shape, double start, DType dtype = f32)
{
    return arange(start, start + double(numel(shape)), 1.0, dtype).reshape(shape);
}

Tensor random_input(const Shape& shape, std::uint64_t seed)
{
    Generator gen(seed);
    return randn(shape, f64, gen);
}

void check_gradient(const std::string& what, const std::function<Tensor(const std::vector<Tensor>&)>& fn, const std::vector<Tensor>& inputs)
{
    INFO(what);
    std::vector<Tensor> leaves;
    for (const Tensor& x : inputs) leaves.push_back(x.clone().requires_grad_());
    const GradcheckResult r = gradcheck(fn, leaves);
    INFO(r.report);
    CHECK(r.ok);
}

}  // namespace

TEST_CASE("cat puts tensors end to end along a dim")
{
    const Tensor a = counting({2, 2}, 0);  // [[0, 1], [2, 3]]
    const Tensor b = counting({1, 2}, 10);  // [[10, 11]]
    const Tensor rows = cat({a, b});
    CHECK(rows.shape() == Shape{3, 2});
    CHECK(rows.to_vector() == std::vector<double>{0, 1, 2, 3, 10, 11});

    const Tensor c = counting({2, 3}, 20);
    const Tensor cols = cat({a, c}, 1);
    CHECK(cols.shape() == Shape{2, 5});
    CHECK(cols.to_vector() == std::vector<double>{0, 1, 20, 21, 22, 2, 3, 23, 24, 25});
    CHECK(cat({a, c}, -1).to_vector() == cols.to_vector());  // negative dims count from the end

    CHECK(cat({a}).to_vector() == a.to_vector());  // one tensor: a copy
    CHECK_FALSE(cat({a}).shares_storage_with(a));
    CHECK(cat({tensor({1.0, 2.0}), tensor({3.0})}).to_vector() == std::vector<double>{1, 2, 3});
}

TEST_CASE("cat reads inputs through their strides (a transposed input)")
{
    const Tensor a = counting({2, 3}, 0).t();  // [[0, 3], [1, 4], [2, 5]]
    const Tensor b = counting({3, 1}, 10);
    CHECK(cat({a, b}, 1).to_vector() == std::vector<double>{0, 3, 10, 1, 4, 11, 2, 5, 12});
}

TEST_CASE("cat skips 1-D empty tensors, as PyTorch's legacy rule allows")
{
    const Tensor nothing = empty({0});
    const Tensor a = counting({2, 2}, 0);
    CHECK(cat({nothing, a, nothing}, 1).to_vector() == a.to_vector());
    CHECK(cat({nothing, nothing}).shape() == Shape{0});
    const Tensor start = empty({0}, f64).requires_grad_();
    const Tensor x = random_input({2, 2}, 1).requires_grad_();
    sum(cat({start, x})).backward();
    CHECK(start.grad().shape() == Shape{0});
    CHECK(x.grad().to_vector() == std::vector<double>{1, 1, 1, 1});
}

TEST_CASE("stack joins tensors of one shape along a new dim")
{
    const Tensor a = counting({2}, 0), b = counting({2}, 10), c = counting({2}, 20);
    const Tensor rows = stack({a, b, c});
    CHECK(rows.shape() == Shape{3, 2});
    CHECK(rows.to_vector() == std::vector<double>{0, 1, 10, 11, 20, 21});
    const Tensor cols = stack({a, b, c}, 1);
    CHECK(cols.shape() == Shape{2, 3});
    CHECK(cols.to_vector() == std::vector<double>{0, 10, 20, 1, 11, 21});
    CHECK(stack({a, b, c}, -1).to_vector() == cols.to_vector());  // -1: a new last dim
    CHECK(stack({counting({2, 2}, 0), counting({2, 2}, 4)}, 1).shape() == Shape{2, 2, 2});
    const Tensor scalars = stack({scalar_tensor(1.0), scalar_tensor(2.0)});  // 0-D tensors stack into 1-D
    CHECK(scalars.shape() == Shape{2});
    CHECK(scalars.to_vector() == std::vector<double>{1, 2});
}

TEST_CASE("cat and stack promote across the whole list as PyTorch does")
{
    const Tensor h = ones({2}, f16), b = ones({2}, bf16), f = ones({2}, f32), n = ones({2}, i64), flag = ones({2}, boolean);
    CHECK(cat({h, h}).dtype() == f16);
    CHECK(cat({h, f}).dtype() == f32);
    CHECK(cat({h, h, b}).dtype() == f32);  // f16 with bf16: neither holds the other
    CHECK(cat({n, h}).dtype() == f16);
    CHECK(cat({flag, n}).dtype() == i64);
    CHECK(cat({n, n}).dtype() == i64);
    CHECK(stack({h, b}).dtype() == f32);
    CHECK(stack({h, n, h}).dtype() == f16);
    CHECK(cat({tensor({65504.0}, f16), tensor({0.5}, bf16)}).to_vector() == std::vector<double>{65504, 0.5});  // exact in f32
}

TEST_CASE("cat and stack of f16 and bf16 inputs equal the f64 result on the same values")
{
    const Tensor a64 = random_input({3, 4}, 2), b64 = random_input({3, 2}, 3), c64 = random_input({3, 4}, 4);
    for (DType d : {f16, bf16}) {
        INFO(std::string(dtype_name(d)));
        const Tensor a = a64.to(d), b = b64.to(d), c = c64.to(d);
        const Tensor joined = cat({a, b}, 1);
        CHECK(joined.dtype() == d);
        check_close(joined, cat({a.to(f64), b.to(f64)}, 1), d);
        const Tensor stacked = stack({a, c}, 1);
        CHECK(stacked.dtype() == d);
        check_close(stacked, stack({a.to(f64), c.to(f64)}, 1), d);
    }
}

TEST_CASE("cat: f64 gradients along each dim")
{
    const std::vector<std::pair<std::vector<Shape>, std::int64_t>> cases = {
        {{{2, 3}, {4, 3}}, 0},        {{{2, 3}, {2, 1}, {2, 2}}, 1}, {{{2, 3}, {2, 2}}, -1},
        {{{5}, {1}}, 0},              {{{2, 1, 3}, {2, 2, 3}}, 1},   {{{2, 2, 1}, {2, 2, 3}}, 2},
    };
    for (const auto& [shapes, dim] : cases) {
        std::vector<Tensor> inputs;
        std::string what = "cat of";
        for (std::size_t i = 0; i < shapes.size(); ++i) {
            inputs.push_back(random_input(shapes[i], 10 + i));
            what += ' ';
            what += shape_str(shapes[i]);
        }
        check_gradient(what + " along " + std::to_string(dim), [dim = dim](const std::vector<Tensor>& in) { return cat(in, dim); }, inputs);
    }
    // A transposed (non-contiguous) input, and a mix of inputs with and without requires_grad.
    check_gradient("cat of a transposed input", [](const std::vector<Tensor>& in) { return cat({in[0].t(), in[1]}, 1); },
                   {random_input({3, 2}, 20), random_input({2, 4}, 21)});
    const Tensor fixed = random_input({1, 3}, 22);
    check_gradient("cat with a constant", [&](const std::vector<Tensor>& in) { return cat({fixed, in[0]}); }, {random_input({2, 3}, 23)});
}

TEST_CASE("stack: f64 gradients along each dim")
{
    for (const Shape& shape : std::vector<Shape>{{}, {3}, {2, 3}}) {
        for (std::int64_t dim = -std::int64_t(shape.size()) - 1; dim <= std::int64_t(shape.size()); ++dim) {
            const std::vector<Tensor> inputs = {random_input(shape, 30), random_input(shape, 31), random_input(shape, 32)};
            std::string what = "stack of 3 x ";
            what += shape_str(shape) + " along " + std::to_string(dim);
            check_gradient(what, [dim](const std::vector<Tensor>& in) { return stack(in, dim); }, inputs);
        }
    }
}

TEST_CASE("each input gets its own slice of the gradient, in its own dtype")
{
    const Tensor h = tensor({1.0, 2.0}, f16).requires_grad_();
    const Tensor f = tensor({3.0, 4.0, 5.0}, f32).requires_grad_();
    const Tensor y = cat({h, f});
    CHECK(y.dtype() == f32);
    CHECK(y.grad_fn_name() == "cat");
    CHECK(y.grad_fn()->next_edges.size() == 2);  // one node, one edge per input
    y.backward(tensor({10.0, 20.0, 30.0, 40.0, 50.0}, f32));
    CHECK(h.grad().dtype() == f16);
    CHECK(h.grad().to_vector() == std::vector<double>{10, 20});
    CHECK(f.grad().dtype() == f32);
    CHECK(f.grad().to_vector() == std::vector<double>{30, 40, 50});

    const Tensor a = tensor({1.0, 2.0}, bf16).requires_grad_();
    const Tensor b = tensor({3.0, 4.0}, f16).requires_grad_();
    const Tensor s = stack({a, b}, 1);  // [[1, 3], [2, 4]] in f32
    CHECK(s.grad_fn_name() == "stack");
    s.backward(tensor({1.0, 2.0, 3.0, 4.0}, {2, 2}, f32));
    CHECK(a.grad().dtype() == bf16);
    CHECK(a.grad().to_vector() == std::vector<double>{1, 3});
    CHECK(b.grad().dtype() == f16);
    CHECK(b.grad().to_vector() == std::vector<double>{2, 4});
}

TEST_CASE("an integer input in a cat gets no gradient and does not stop the others'")
{
    const Tensor w = tensor({0.5}, f32).requires_grad_();
    const Tensor n = tensor({7.0}, i64);
    const Tensor y = cat({n, w});
    CHECK(y.dtype() == f32);
    sum(mul(y, y)).backward();
    CHECK(w.grad().to_vector() == std::vector<double>{1.0});
}

TEST_CASE("cat and stack errors name the tensor and the shapes")
{
    const Tensor a = ones({2, 3}), b = ones({2, 4}), c = ones({2, 3, 1});
    CHECK(error_message([] { cat({}); }, ErrorKind::value) == "cat: expected a non-empty list of tensors");
    CHECK(error_message([] { stack({}); }, ErrorKind::value) == "stack: expected a non-empty list of tensors");
    CHECK(error_message([&] { cat({a, b}); }, ErrorKind::shape) ==
          "cat: sizes must match except in dimension 0, but tensor 1 has shape [2, 4] and tensor 0 has shape [2, 3] (dimension 1 differs)");
    CHECK(error_message([&] { cat({a, a, c}, 1); }, ErrorKind::shape) ==
          "cat: tensor 2 has shape [2, 3, 1] but tensor 0 has shape [2, 3]; all tensors need the same number of dimensions");
    CHECK(error_message([&] { cat({a, scalar_tensor(1.0)}); }, ErrorKind::shape).find("tensor 1 is 0-D") != std::string::npos);
    CHECK(error_message([&] { stack({a, a, b}); }, ErrorKind::shape) ==
          "stack: every tensor must have the same shape, but tensor 2 has shape [2, 4] and tensor 0 has shape [2, 3]");
    CHECK(error_message([&] { cat({a, a}, 2); }, ErrorKind::index).find("dimension 2 is out of range") != std::string::npos);
    CHECK(error_message([&] { stack({a, a}, 3); }, ErrorKind::index) ==
          "stack: dim 3 is out of range for stacking 2-D tensors into 3-D (valid: -3..2)");
    CHECK(error_message([&] { cat({a, Tensor()}); }, ErrorKind::value) == "cat: tensor 1 of the list is undefined");
}
