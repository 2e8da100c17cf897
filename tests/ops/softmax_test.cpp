// softmax and log_softmax: gradients by gradcheck in f64; f16/bf16 results within the dtype
// tolerance of f64; rows sum to 1; large logits stay finite; the dtype= argument; errors.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <string>

#include <tinyamp/tinyamp.h>

#include "tests/support/expect_error.h"
#include "tests/support/tolerance.h"

using namespace tinyamp;
using tinyamp::test::check_close;
using tinyamp::test::ulps_for;
using tinyamp::test::error_message;

namespace {

using SoftmaxFn = std::function<Tensor(const Tensor&, std::int64_t, std::optional<DType>)>;

const std::vector<std::pair<std::string, SoftmaxFn>>& both_ops()
{
    static const std::vector<std::pair<std::string, SoftmaxFn>> ops = {
        {"softmax", [](const Tensor& x, std::int64_t dim, std::optional<DType> d) { return softmax(x, dim, d); }},
        {"log_softmax", [](const Tensor& x, std::int64_t dim, std::optional<DType> d) { return log_softmax(x, dim, d); }},
    };
    return ops;
}

Tensor logits(const Shape& shape, std::uint64_t seed, double scale = 3.0)
{
    Generator gen(seed);
    return mul(randn(shape, f64, gen), scale);
}

}  // namespace

TEST_CASE("softmax and log_softmax: f64 gradients over several shapes and dims")
{
    const std::vector<std::pair<Shape, std::int64_t>> cases = {{{5}, 0},       {{3, 4}, 1},     {{3, 4}, 0},  {{3, 4}, -1},
                                                               {{2, 3, 4}, 1}, {{2, 3, 4}, -3}, {{2, 3, 4}, 2}, {{}, 0}};
    for (const auto& [name, op] : both_ops())
        for (const auto& [shape, dim] : cases) {
            INFO(name << " of shape " << shape_str(shape) << " along dim " << dim);
            const Tensor x = logits(shape, 1).requires_grad_();
            const GradcheckResult r = gradcheck([&](const std::vector<Tensor>& in) { return op(in[0], dim, std::nullopt); }, {x});
            INFO(r.report);
            CHECK(r.ok);
        }
}

TEST_CASE("softmax and log_softmax: f16/bf16 results within 2 ulps of f64 on the same rounded inputs, f32 within its sum's error")
{
    const Tensor x64 = logits({6, 33}, 2);
    for (const auto& [name, op] : both_ops())
        for (DType d : {f16, bf16, f32})
            for (std::int64_t dim : {1, 0}) {
                INFO(name << " in " << dtype_name(d) << " along dim " << dim);
                const Tensor x = x64.to(d);
                const Tensor y = op(x, dim, std::nullopt);
                CHECK(y.dtype() == d);
                check_close(y, op(x.to(f64), dim, std::nullopt), d, ulps_for(d, x.size(dim)));
            }
}

TEST_CASE("softmax rows sum to 1")
{
    const Tensor x64 = logits({4, 50}, 3);
    for (DType d : {f64, f32, f16, bf16})
        for (std::int64_t dim : {1, 0}) {
            INFO(dtype_name(d) << " along dim " << dim);
            const Tensor row_sums = sum(softmax(x64.to(d), dim).to(f64), {dim});
            // Each probability is within ulps_for(d, n) ulps of its exact value (relative), so
            // their sum, exactly 1, is within as many ulps of 1.
            check_close(row_sums, ones(row_sums.shape(), f64), d, ulps_for(d, x64.size(dim)));
        }
}

TEST_CASE("softmax and log_softmax of large logits stay finite")
{
    // Naively e^10000 is inf in f32, and inf / inf is NaN.
    const Tensor big = tensor({1e4, 0.0, -1e4}, f32);
    CHECK(log_softmax(big, 0).to_vector() == std::vector<double>{0.0, -1e4, -2e4});
    CHECK(softmax(big, 0).to_vector() == std::vector<double>{1.0, 0.0, 0.0});

    // e^12 is already above f16's largest value, 65504: the row max must come off first.
    for (const Tensor& x : {tensor({20.0, 12.0, 11.0, -60000.0}, f16), tensor({60000.0, 0.0, -5.0}, f16)})
        for (const auto& [name, op] : both_ops()) {
            INFO(name << " of " << x.to_string());
            const Tensor y = op(x, 0, std::nullopt);
            for (double v : y.to_vector()) CHECK(std::isfinite(v));
            check_close(y, op(x.to(f64), 0, std::nullopt), f16);
        }
}

TEST_CASE("softmax with dtype f32 on an f16 input: f32 result, one node, and an f16 input gradient")
{
    const Tensor x64 = logits({4, 7}, 4);
    Generator gen(5);
    const Tensor v = randn({4, 7}, f32, gen);  // the upstream gradient
    for (const auto& [name, op] : both_ops()) {
        INFO(name);
        const Tensor x = x64.to(f16).requires_grad_();
        const Tensor y = op(x, -1, f32);
        CHECK(y.dtype() == f32);
        CHECK(y.grad_fn_name() == name);  // the conversion is inside the op, not a separate `to` node
        CHECK(y.grad_fn()->inputs[0].dtype == f16);
        check_close(y, op(x.to(f64), -1, std::nullopt), f32, ulps_for(f32, 7));
        sum(mul(y, v)).backward();
        REQUIRE(x.grad().defined());
        CHECK(x.grad().dtype() == f16);

        // The backward runs in f32 and rounds once into f16: within 2 f16 ulps of the f64 gradient.
        const Tensor x_exact = x.detach().to(f64).requires_grad_();
        sum(mul(op(x_exact, -1, std::nullopt), v.to(f64))).backward();
        check_close(x.grad(), x_exact.grad(), f16);
    }
}

TEST_CASE("softmax dtype argument: integers in, f32 out, and the same dtype changes nothing")
{
    const Tensor counts = tensor({0.0, 1.0, 2.0}, i64);
    const Tensor p = softmax(counts, 0, f32);
    CHECK(p.dtype() == f32);
    check_close(p, softmax(counts.to(f64), 0), f32, ulps_for(f32, 3));
    const Tensor x = tensor({1.0, 2.0}, f32);
    CHECK(softmax(x, 0, f32).to_vector() == softmax(x, 0).to_vector());
    CHECK(log_softmax(x.to(bf16), 0, f64).dtype() == f64);
}

TEST_CASE("softmax of f16 and bf16 inputs keeps the gradient in the input dtype")
{
    for (DType d : {f16, bf16}) {
        INFO(dtype_name(d));
        const Tensor x = logits({3, 5}, 6).to(d).requires_grad_();
        sum(mul(softmax(x, 1), ones({3, 5}, d))).backward();
        CHECK(x.grad().dtype() == d);
        // The rows of a softmax sum to a constant, so the gradient of their sum is 0.
        check_close(x.grad(), zeros({3, 5}, f64), d, 2.0, 1.0);
    }
}

TEST_CASE("softmax errors say what to do")
{
    const Tensor n = tensor({1.0, 2.0}, i64);
    CHECK(error_message([&] { softmax(n, 0); }, ErrorKind::dtype) == "softmax needs a floating point tensor, got i64; pass dtype=f32 or convert it with .to(f32) first");
    CHECK(error_message([&] { log_softmax(ones({2}), 0, i64); }, ErrorKind::dtype) == "log_softmax: dtype must be a floating point dtype, got i64");
    CHECK(error_message([&] { softmax(ones({2, 3}), 2); }, ErrorKind::index).find("dimension 2 is out of range") != std::string::npos);
}
