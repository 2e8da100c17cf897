// embedding: the rows it picks (bit for bit, in the weight's dtype, for indices of any shape);
// the dense gradient (rows picked twice add up, summed in f32 for f16 weights); f64 gradients by
// gradcheck, and through the backward itself (create_graph); errors that name the bad index.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <tinyamp/tinyamp.h>

#include "tests/support/expect_error.h"

using namespace tinyamp;
using tinyamp::test::error_message;

namespace {

// Row `row` of a 2-D tensor, as doubles.
std::vector<double> row_of(const Tensor& m, std::int64_t row) { return m.select(0, row).to_vector(); }

}  // namespace

TEST_CASE("embedding picks weight rows by index: input.shape + [dim], in the weight's dtype, bit for bit")
{
    Generator gen(7);
    const Tensor indices = tensor({0, 4, 4, 2, 1, 3}, {2, 3}, i64);
    for (DType d : {f64, f32, f16, bf16}) {
        INFO(dtype_name(d));
        const Tensor weight = randn({5, 3}, d, gen);
        const Tensor out = embedding(indices, weight);
        CHECK(out.dtype() == d);
        CHECK(out.shape() == Shape{2, 3, 3});
        const std::vector<double> picked = indices.to_vector();
        for (std::int64_t i = 0; i < 6; ++i)
            CHECK(out.reshape({6, 3}).select(0, i).to_vector() == row_of(weight, std::int64_t(picked[std::size_t(i)])));
    }
    // A 0-D index gives one row; a transposed (non-contiguous) weight reads the same values.
    const Tensor weight = randn({4, 5}, f32, gen);
    CHECK(embedding(scalar_tensor(2, i64), weight).to_vector() == row_of(weight, 2));
    const Tensor wt = weight.t().contiguous().t();
    CHECK(embedding(tensor({3, 0}, i64), wt).to_vector() == embedding(tensor({3, 0}, i64), weight).to_vector());
}

TEST_CASE("embedding's gradient is dense: rows picked twice add up, rows never picked get 0")
{
    const Tensor weight = zeros({4, 2}, f64).requires_grad_();
    const Tensor indices = tensor({1, 3, 1}, i64);
    const Tensor upstream = tensor({1, 2, 10, 20, 100, 200}, {3, 2}, f64);
    sum(mul(embedding(indices, weight), upstream)).backward();
    CHECK(weight.grad().shape() == Shape{4, 2});
    CHECK(weight.grad().to_vector() == std::vector<double>{0, 0, 101, 202, 0, 0, 10, 20});
}

TEST_CASE("embedding of an f16 weight sums the gradient in f32 and rounds once")
{
    // 3000 ones added one at a time in f16 would stop at 2048 (2049 is not an f16 number).
    const Tensor weight = zeros({2, 1}, f16).requires_grad_();
    sum(embedding(zeros({3000}, i64), weight)).backward();
    CHECK(weight.grad().dtype() == f16);
    CHECK(weight.grad().to_vector() == std::vector<double>{3000, 0});
}

TEST_CASE("embedding: f64 gradients by gradcheck, and the gradient of its gradient")
{
    Generator gen(8);
    const Tensor weight = randn({6, 3}, f64, gen).requires_grad_();
    const Tensor indices = tensor({5, 0, 2, 2, 4, 0, 1, 5}, {2, 4}, i64);
    const GradcheckResult r = gradcheck([&](const std::vector<Tensor>& in) { return embedding(indices, in[0]); }, {weight});
    INFO(r.report);
    CHECK(r.ok);
    // The backward (embedding_backward) is an op too, so with create_graph the weight's gradient
    // has a graph back to the incoming gradient g: d/dg of sum(weight.grad * c) is c[indices].
    const Tensor g = randn({2, 4, 3}, f64, gen).requires_grad_();
    const Tensor c = randn({6, 3}, f64, gen);
    const Tensor w = weight.detach().requires_grad_();
    embedding(indices, w).backward(g, false, true);
    REQUIRE(w.grad().requires_grad());
    sum(mul(w.grad(), c)).backward();
    CHECK(g.grad().to_vector() == embedding(indices, c).to_vector());
}

TEST_CASE("embedding errors name the bad value and the fix")
{
    const Tensor weight = ones({5, 3});
    std::string message = error_message([&] { embedding(tensor({0, 1}, f32), weight); }, ErrorKind::dtype);
    CHECK(message.find("must be i64, but got f32") != std::string::npos);
    CHECK(message.find(".to(i64)") != std::string::npos);
    message = error_message([&] { embedding(tensor({0, 1, 2, 5}, {2, 2}, i64), weight); }, ErrorKind::index);
    CHECK(message.find("index 5 at position [1, 1]") != std::string::npos);
    CHECK(message.find("5 rows (indices go from 0 to 4)") != std::string::npos);
    CHECK(message.find("num_embeddings") != std::string::npos);
    CHECK(error_message([&] { embedding(tensor({-1}, i64), weight); }, ErrorKind::index).find("index -1") != std::string::npos);
    CHECK(error_message([&] { embedding(tensor({0}, i64), ones({5})); }, ErrorKind::shape).find("2-D [num_embeddings, embedding_dim]") !=
          std::string::npos);
    CHECK(error_message([&] { embedding(tensor({0}, i64), ones({5, 3}, i64)); }, ErrorKind::dtype).find("floating point") != std::string::npos);
    // PyTorch's order is (input, weight): the swapped call is refused by the index check.
    CHECK(error_message([&] { embedding(weight, tensor({0}, i64)); }, ErrorKind::dtype).find("embedding(input, weight)") != std::string::npos);
}
