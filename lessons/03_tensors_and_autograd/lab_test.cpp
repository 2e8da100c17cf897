// Lab 3's checks. Run them with:  build/lessons/labs -ts=lab03
#include <doctest/doctest.h>

#include <cmath>

#include "lessons/03_tensors_and_autograd/lab.h"

using namespace tinyamp;
using namespace tinyamp::lab03;

namespace {

Tensor sum_of_squares(const Tensor& x) { return sum(mul(x, x)); }
Tensor sum_of_exp(const Tensor& x) { return sum(exp(x)); }

}  // namespace

TEST_SUITE("lab03")
{
    TEST_CASE("lab 03.1: gradient_of runs backward and returns the gradient")
    {
        const Tensor x = tensor({1.0, 2.0, 3.0});
        const Tensor g = gradient_of(sum_of_squares, x);
        CHECK(g.to_vector() == std::vector<double>{2.0, 4.0, 6.0});  // d/dx sum(x^2) = 2x
        CHECK(g.dtype() == f32);
        CHECK(g.shape() == Shape{3});
        CHECK(x.requires_grad() == false);   // x itself was not marked
        CHECK(x.grad().defined() == false);
        CHECK(gradient_of(sum_of_exp, tensor({0.0})).item() == 1.0);  // e^0
    }

    TEST_CASE("lab 03.2: numeric_gradient is a central difference in f64")
    {
        const Tensor x = tensor({1.0, 2.0, 3.0});
        const Tensor n = numeric_gradient(sum_of_squares, x);
        CHECK(n.dtype() == f64);
        CHECK(n.shape() == Shape{3});
        CHECK(std::abs(n.at({0}) - 2.0) < 1e-6);
        CHECK(std::abs(n.at({2}) - 6.0) < 1e-6);
        CHECK(x.to_vector() == std::vector<double>{1.0, 2.0, 3.0});  // x was put back
        // It agrees with autograd in f64: e^1 and e^-1.
        const Tensor x64 = tensor({1.0, -1.0}, f64);
        const Tensor a = gradient_of(sum_of_exp, x64), b = numeric_gradient(sum_of_exp, x64);
        CHECK(std::abs(a.at({0}) - b.at({0})) < 1e-8);
        CHECK(std::abs(b.at({1}) - std::exp(-1.0)) < 1e-8);
        CHECK(x64.to_vector() == std::vector<double>{1.0, -1.0});  // an f64 x is not changed either
    }

    TEST_CASE("lab 03.3: grad_fn_chain walks the graph back to a leaf")
    {
        const Tensor x = tensor({1.0, 2.0}).requires_grad_();
        CHECK(grad_fn_chain(mul(add(x, 1.0), 2.0)) == std::vector<std::string>{"mul", "add", "AccumulateGrad"});
        CHECK(grad_fn_chain(x).empty());  // a leaf has no grad_fn
        // x2 needs no gradient, so linear's first edge with one is the weight's.
        const Tensor x2 = ones({1, 2});
        const Tensor w = ones({3, 2}).requires_grad_();
        CHECK(grad_fn_chain(sum(relu(linear(x2, w)))) == std::vector<std::string>{"sum", "relu", "linear", "AccumulateGrad"});
        NoGradGuard no_grad;
        CHECK(grad_fn_chain(mul(x, 2.0)).empty());  // nothing is recorded under NoGradGuard
    }
}
