// tril and triu: values against the definition (j - i <= diagonal, j - i >= diagonal) over
// diagonals, non-square and stacked matrices and every dtype (bool for masks); f64 gradients by
// gradcheck; errors.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <tinyamp/tinyamp.h>

#include "tests/support/expect_error.h"

using namespace tinyamp;
using tinyamp::test::error_message;

TEST_CASE("tril and triu keep the triangle j - i <= diagonal (tril) or j - i >= diagonal (triu), the rest 0")
{
    Generator gen(5);
    for (const Shape& shape : {Shape{4, 4}, Shape{3, 5}, Shape{5, 2}, Shape{2, 3, 4}})
        for (std::int64_t diagonal : {-2, -1, 0, 1, 3}) {
            INFO("shape " << shape_str(shape) << ", diagonal " << diagonal);
            const Tensor x = randn(shape, f32, gen);
            const Tensor lower = tril(x, diagonal), upper = triu(x, diagonal);
            CHECK(lower.shape() == shape);
            const std::int64_t rows = x.size(-2), cols = x.size(-1), count = x.numel() / (rows * cols);
            const std::vector<double> v = x.to_vector(), l = lower.to_vector(), u = upper.to_vector();
            for (std::int64_t b = 0; b < count; ++b)
                for (std::int64_t i = 0; i < rows; ++i)
                    for (std::int64_t j = 0; j < cols; ++j) {
                        const auto at = std::size_t((b * rows + i) * cols + j);
                        CHECK(l[at] == (j - i <= diagonal ? v[at] : 0.0));
                        CHECK(u[at] == (j - i >= diagonal ? v[at] : 0.0));
                    }
        }
}

TEST_CASE("tril and triu keep the input's dtype: the causal masks of attention are bool")
{
    const Tensor allowed = tril(ones({3, 3}, boolean));
    CHECK(allowed.dtype() == boolean);
    CHECK(allowed.to_vector() == std::vector<double>{1, 0, 0, 1, 1, 0, 1, 1, 1});
    const Tensor future = triu(ones({3, 3}, boolean), 1);
    CHECK(future.to_vector() == std::vector<double>{0, 1, 1, 0, 0, 1, 0, 0, 0});
    for (DType d : {f64, f32, f16, bf16, i64}) {
        INFO(dtype_name(d));
        CHECK(tril(full({2, 2}, 3.0, d)).dtype() == d);
        CHECK(triu(full({2, 2}, 3.0, d)).to_vector() == std::vector<double>{3, 3, 0, 3});
    }
}

TEST_CASE("tril and triu: f64 gradients by gradcheck (the gradient is the same triangle)")
{
    Generator gen(6);
    const Tensor x = randn({2, 3, 4}, f64, gen).requires_grad_();
    for (std::int64_t diagonal : {-1, 0, 2}) {
        INFO("diagonal " << diagonal);
        const GradcheckResult lower = gradcheck([&](const std::vector<Tensor>& in) { return tril(in[0], diagonal); }, {x});
        INFO(lower.report);
        CHECK(lower.ok);
        const GradcheckResult upper = gradcheck([&](const std::vector<Tensor>& in) { return triu(in[0], diagonal); }, {x});
        INFO(upper.report);
        CHECK(upper.ok);
    }
    const Tensor m = ones({2, 2}, f64).requires_grad_();
    sum(tril(m)).backward();
    CHECK(m.grad().to_vector() == std::vector<double>{1, 0, 1, 1});
}

TEST_CASE("tril and triu need a matrix")
{
    CHECK(error_message([] { tril(ones({3})); }, ErrorKind::shape).find("at least 2 dimensions") != std::string::npos);
    CHECK(error_message([] { triu(ones({})); }, ErrorKind::shape).find("triu") != std::string::npos);
}
