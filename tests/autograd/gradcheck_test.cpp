// gradcheck itself: it must pass correct gradients and catch wrong ones.
#include <doctest/doctest.h>

#include <string>

#include <tinyamp/tinyamp.h>

#include "tests/support/expect_error.h"

using namespace tinyamp;

namespace {

// A Function whose backward is deliberately off by a factor, to see gradcheck fail.
struct WrongSquare : Function<WrongSquare> {
    static constexpr const char* name = "wrong_square";
    static Tensor forward(Context& ctx, const Tensor& x)
    {
        ctx.save_for_backward({x});
        return mul(x, x);
    }
    static std::vector<Tensor> backward(Context& ctx, const Tensor& grad) { return {mul(grad, mul(ctx.saved_tensors()[0], 2.1))}; }
};

}  // namespace

TEST_CASE("gradcheck accepts a correct gradient and reports a wrong one")
{
    const Tensor x = tensor({0.5, -1.5, 2.0}, f64).requires_grad_();
    const GradcheckResult good = gradcheck([](const std::vector<Tensor>& in) { return mul(in[0], in[0]); }, {x});
    CHECK(good.ok);
    CHECK(good.report.find("gradients match (3 elements compared") != std::string::npos);
    const GradcheckResult bad = gradcheck([](const std::vector<Tensor>& in) { return WrongSquare::apply(in[0]); }, {x});
    CHECK_FALSE(bad.ok);
    INFO(bad.report);
    CHECK(bad.report.find("input 0 element [0]: backward gives") != std::string::npos);  // all three are 5% off
    CHECK(bad.report.find("input 0 element [2]") != std::string::npos);
    CHECK(bad.report.find("gradients differ (3 elements compared") != std::string::npos);
}

TEST_CASE("gradcheck leaves the caller's tensors and gradients alone")
{
    const Tensor x = tensor({1.0, 2.0}, f64).requires_grad_();
    gradcheck([](const std::vector<Tensor>& in) { return exp(in[0]); }, {x});
    CHECK_FALSE(x.grad().defined());
    CHECK(x.to_vector() == std::vector<double>{1, 2});
}

TEST_CASE("gradcheck refuses low-precision inputs")
{
    const Tensor x = ones({2}, f32).requires_grad_();
    CHECK(tinyamp::test::error_message([&] { gradcheck([](const std::vector<Tensor>& in) { return in[0]; }, {x}); }, ErrorKind::dtype)
              .find("only meaningful in f64") != std::string::npos);
}
