// Reductions: values, dims and keepdim, gradients (gradcheck, f64), low precision vs f64.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include <tinyamp/tinyamp.h>

#include "tests/support/expect_error.h"
#include "tests/support/tolerance.h"

using namespace tinyamp;
using tinyamp::test::check_close;
using tinyamp::test::error_message;

namespace {

Tensor sample(const Shape& shape, std::uint64_t seed)
{
    Generator gen(seed);
    return randn(shape, f64, gen);
}

void expect_gradcheck(const std::function<Tensor(const Tensor&)>& fn, const Tensor& x)
{
    const GradcheckResult r = gradcheck([&](const std::vector<Tensor>& in) { return fn(in[0]); }, {x.requires_grad_()});
    INFO(r.report);
    CHECK(r.ok);
}

}  // namespace

TEST_CASE("sum and mean over all, some, and negative dims, with and without keepdim")
{
    const Tensor x = arange(0.0, 24.0, 1.0).reshape({2, 3, 4});
    CHECK(sum(x).item() == 276);
    CHECK(sum(x).dim() == 0);
    CHECK(sum(x, {0}).to_vector() == std::vector<double>{12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34});
    CHECK(sum(x, {1, 2}).to_vector() == std::vector<double>{66, 210});
    CHECK(sum(x, {-1}, true).shape() == Shape{2, 3, 1});
    CHECK(sum(x, {-1}, true).to_vector() == std::vector<double>{6, 22, 38, 54, 70, 86});
    CHECK(mean(x, {2, 0}).to_vector() == std::vector<double>{7.5, 11.5, 15.5});
    CHECK(mean(x).item() == 11.5);
    CHECK(sum(arange(5)).dtype() == i64);  // integers sum to i64, as in PyTorch
    CHECK(sum(ones({3}, boolean)).item() == 3);
}

TEST_CASE("reduction gradients match finite differences")
{
    const Tensor x = sample({3, 4, 2}, 1);
    expect_gradcheck([](const Tensor& t) { return sum(t); }, x);
    expect_gradcheck([](const Tensor& t) { return sum(t, {1}); }, x);
    expect_gradcheck([](const Tensor& t) { return sum(t, {0, 2}, true); }, x);
    expect_gradcheck([](const Tensor& t) { return mean(t); }, x);
    expect_gradcheck([](const Tensor& t) { return mean(t, {-1}); }, x);
    expect_gradcheck([](const Tensor& t) { return max(t); }, x);
    expect_gradcheck([](const Tensor& t) { return max(t, 1).values; }, x);
    expect_gradcheck([](const Tensor& t) { return max(t, 0, true).values; }, x);
    expect_gradcheck([](const Tensor& t) { return sum_to(t, {4, 1}); }, x);
}

TEST_CASE("f16/bf16 reductions accumulate in f32 and round once")
{
    const Tensor x64 = add(sample({8, 300}, 2), 1.0);
    for (DType d : {f16, bf16}) {
        const Tensor x = x64.to(d), exact = x.to(f64);
        // One rounding of each result; the f32 accumulation error is far below the f16/bf16 ulp.
        check_close(sum(x, {1}), sum(exact, {1}), d);
        check_close(mean(x, {1}), mean(exact, {1}), d);
        check_close(max(x, 1).values, max(exact, 1).values, d);
    }
    // 4096 ones sum to exactly 4096 in f16: an f16 accumulator would get stuck at 2048 (where 1 is half an ulp).
    CHECK(sum(ones({4096}, f16)).item() == 4096);
}

TEST_CASE("max and argmax find the first largest element, and NaN wins")
{
    const Tensor x = tensor({1.0, 5.0, 5.0, 2.0, 7.0, -1.0}, {2, 3});
    const MaxResult r = max(x, 1);
    CHECK(r.values.to_vector() == std::vector<double>{5, 7});
    CHECK(r.indices.to_vector() == std::vector<double>{1, 1});
    CHECK(r.indices.dtype() == i64);
    CHECK(argmax(x, 0).to_vector() == std::vector<double>{1, 1, 0});
    CHECK(argmax(x).item() == 4);
    CHECK(max(x).item() == 7);
    CHECK(std::isnan(max(tensor({1.0, NAN, 3.0})).item()));
    CHECK(argmax(tensor({1.0, NAN, 3.0})).item() == 1);
    const Tensor w = tensor({3.0, 9.0, 4.0}, f64).requires_grad_();
    max(w).backward();
    CHECK(w.grad().to_vector() == std::vector<double>{0, 1, 0});
}

TEST_CASE("count_nonzero counts x != 0 as PyTorch does: -0 is zero, NaN is not, i64, 0-D, no gradient")
{
    const Tensor x = tensor({0.0, -0.0, NAN, 1e-40, -3.0, INFINITY}, {2, 3});
    for (DType dtype : {f64, f32, f16, bf16}) {
        CAPTURE(dtype_name(dtype));
        const Tensor count = count_nonzero(x.to(dtype));
        CHECK(count.dtype() == i64);
        CHECK(count.dim() == 0);
        // 1e-40 is an f32 subnormal and a bf16 one, but below f16's smallest (it rounds to 0 there).
        CHECK(count.item() == (dtype == f16 ? 3 : 4));
    }
    CHECK(count_nonzero(tensor({3.0, 0.0, -2.0}).to(i64)).item() == 2);
    CHECK(count_nonzero(eq(tensor({1.0, 2.0, 1.0}), 1.0)).item() == 2);
    CHECK(count_nonzero(x.transpose(0, 1)).item() == 4);  // a strided view counts the same elements
    CHECK(count_nonzero(zeros({0})).item() == 0);
    const Tensor w = tensor({1.0, 0.0}).requires_grad_();
    CHECK_FALSE(count_nonzero(w).requires_grad());
}

TEST_CASE("reduction errors")
{
    const Tensor x = ones({2, 3});
    CHECK(error_message([&] { sum(x, {0, -2}); }, ErrorKind::index).find("name a dimension twice") != std::string::npos);
    CHECK(error_message([&] { sum(x, {2}); }, ErrorKind::index).find("dimension 2 is out of range") != std::string::npos);
    CHECK(error_message([&] { mean(arange(3)); }, ErrorKind::dtype).find("mean needs a floating point tensor") != std::string::npos);
    CHECK(error_message([&] { max(ones({0})); }, ErrorKind::shape).find("empty tensor") != std::string::npos);
}
