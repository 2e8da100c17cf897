// The Tensor layout methods as ops: each has a gradient (gradcheck in f64) and a graph node.
#include <doctest/doctest.h>

#include <functional>
#include <string>

#include <tinyamp/tinyamp.h>

using namespace tinyamp;

namespace {

void expect_gradcheck(const char* what, const std::function<Tensor(const Tensor&)>& fn, const Shape& shape)
{
    INFO(std::string(what));
    Generator gen(11);
    const Tensor x = randn(shape, f64, gen).requires_grad_();
    const GradcheckResult r = gradcheck([&](const std::vector<Tensor>& in) { return fn(in[0]); }, {x});
    INFO(r.report);
    CHECK(r.ok);
}

}  // namespace

TEST_CASE("every view and copy op has a correct gradient")
{
    expect_gradcheck("view", [](const Tensor& x) { return x.view({6, 2}); }, {3, 4});
    expect_gradcheck("reshape of a transposed tensor (copies)", [](const Tensor& x) { return x.t().reshape({-1}); }, {3, 4});
    expect_gradcheck("transpose", [](const Tensor& x) { return x.transpose(0, 2); }, {2, 3, 4});
    expect_gradcheck("permute", [](const Tensor& x) { return x.permute({2, 0, 1}); }, {2, 3, 4});
    expect_gradcheck("slice with step", [](const Tensor& x) { return x.slice(1, 1, 4, 2); }, {3, 5});
    expect_gradcheck("narrow", [](const Tensor& x) { return x.narrow(0, -2, 2); }, {4, 2});
    expect_gradcheck("select", [](const Tensor& x) { return x.select(1, -1); }, {3, 4});
    expect_gradcheck("unsqueeze and squeeze", [](const Tensor& x) { return x.unsqueeze(1).squeeze(1).unsqueeze(-1); }, {3, 4});
    expect_gradcheck("expand", [](const Tensor& x) { return x.expand({2, 3, 4}); }, {3, 1});
    expect_gradcheck("contiguous of a transpose", [](const Tensor& x) { return x.t().contiguous(); }, {3, 4});
    expect_gradcheck("clone", [](const Tensor& x) { return x.clone(); }, {5});
    expect_gradcheck("t", [](const Tensor& x) { return x.t(); }, {2, 5});
}

TEST_CASE("view ops record nodes named after them, and stay views")
{
    const Tensor x = ones({2, 3}).requires_grad_();
    CHECK(x.t().grad_fn_name() == "transpose");
    CHECK(x.reshape({3, 2}).grad_fn_name() == "reshape");
    CHECK(x.slice(0, 0, 1).grad_fn_name() == "slice");
    CHECK(x.expand({4, 2, 3}).grad_fn_name() == "expand");
    CHECK(x.t().shares_storage_with(x));
    CHECK(x.contiguous().is_same(x));  // nothing to do: the tensor itself, no node
    CHECK(x.to(f16).grad_fn_name() == "to");
}

TEST_CASE("the gradient of a slice lands in the sliced part only")
{
    const Tensor x = zeros({2, 5}, f64).requires_grad_();
    sum(mul(x.slice(1, 1, 5, 2), tensor({10.0, 20.0}, f64))).backward();
    CHECK(x.grad().to_vector() == std::vector<double>{0, 10, 0, 20, 0, 0, 10, 0, 20, 0});
}
