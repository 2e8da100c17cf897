// Lab 03's checks. Run them with:  scripts/lab check 03
#include <cmath>
#include <string>
#include <vector>

#include "lessons/03_tensors_and_autograd/lab.h"
#include "lessons/support/lab_checks.h"

using namespace tinyamp;
using namespace tinyamp::lab03;
using tinyamp::lesson::approx;

namespace {

Tensor sum_of_squares(const Tensor& x) { return sum(mul(x, x)); }
Tensor sum_of_exp(const Tensor& x) { return sum(exp(x)); }
Tensor square_of_sum(const Tensor& x)
{
    const Tensor s = sum(x);
    return mul(s, s);
}

}  // namespace

TEST_SUITE("lab03")
{
    TEST_CASE("lab 03.1: gradient_of runs backward and returns the gradient")
    {
        const Tensor x = tensor({1.0, 2.0, 3.0});
        const Tensor g = gradient_of(sum_of_squares, x);
        LAB_CHECK("d/dx sum(x^2) = 2x: at [1, 2, 3] the gradient is [2, 4, 6]",
                  g.to_vector() == std::vector<double>{2.0, 4.0, 6.0});
        LAB_CHECK("the gradient has x's dtype",
                  g.dtype() == f32);
        LAB_CHECK("the gradient has x's shape",
                  g.shape() == Shape{3});
        CAPTURE(x);
        LAB_CHECK("x itself is not marked: autograd works on a leaf copy of it (mistake: making x itself require grad)",
                  x.requires_grad() == false);
        const Tensor x_grad = x.grad();
        CAPTURE(x_grad);
        LAB_CHECK("x's .grad is not touched: it stays undefined (mistake: making x itself require grad)",
                  x_grad.defined() == false);
        LAB_CHECK("d/dx sum(e^x) at 0 is e^0 = 1",
                  gradient_of(sum_of_exp, tensor({0.0})).item() == 1.0);
    }

    TEST_CASE("lab 03.2: numeric_gradient is a central difference in f64")
    {
        const Tensor x = tensor({1.0, 2.0, 3.0});
        const Tensor n = numeric_gradient(sum_of_squares, x);
        LAB_CHECK("the numeric gradient is an f64 tensor, whatever x's dtype",
                  n.dtype() == f64);
        LAB_CHECK("the numeric gradient is shaped like x",
                  n.shape() == Shape{3});
        {
            CAPTURE(n);
            LAB_CHECK("(f(x + h) - f(x - h)) / 2h for sum(x^2) at x0 = 1 is 2x0 = 2 within 1e-6",
                      std::abs(n.at({0}) - 2.0) < 1e-6);
            LAB_CHECK("(f(x + h) - f(x - h)) / 2h for sum(x^2) at x2 = 3 is 2x2 = 6 within 1e-6",
                      std::abs(n.at({2}) - 6.0) < 1e-6);
        }
        LAB_CHECK("x is left as it was: the nudges go into a copy",
                  x.to_vector() == std::vector<double>{1.0, 2.0, 3.0});
        // h = 2^-10: x +- h, the squares and their sum are exact, even in f32.
        LAB_CHECK("with h = 2^-10 no step rounds, so the central difference of sum(x^2) is exactly 2x = [2, 4, 6]: "
                  "f(x + h) - f(x - h) = 4xh (mistake: dividing by h instead of 2h)",
                  numeric_gradient(sum_of_squares, x, 0.0009765625).to_vector() == approx({2.0, 4.0, 6.0}, 1e-12));
        LAB_CHECK("x's dtype does not matter: the f32 x [1, 2, 3] gives the numbers the f64 one does; in f32, 1 + 1e-6 "
                  "is 1.00000095 and f is rounded to 1e-6 (mistake: nudging x in its own dtype instead of f64)",
                  n.to_vector() == approx(numeric_gradient(sum_of_squares, tensor({1.0, 2.0, 3.0}, f64)).to_vector(), 1e-12));
        // (x0 + x1 + x2)^2: each derivative is 2 (x0 + x1 + x2) = 12, which depends on all the elements.
        const std::vector<double> q = numeric_gradient(square_of_sum, x, 1e-3).to_vector();
        REQUIRE(q.size() == 3);
        LAB_CHECK("every element of the gradient of (x0 + x1 + x2)^2 is the same, 2 (x0 + x1 + x2): each element "
                  "must be back at its value when the next is nudged (mistake: not putting each element back after nudging it)",
                  q == approx({q[0], q[0], q[0]}, 1e-9));
        LAB_CHECK("d/dxi (x0 + x1 + x2)^2 = 2 (x0 + x1 + x2) = 12 for every i (with h = 1e-3 the central difference of "
                  "a quadratic is exact up to rounding)",
                  q == approx({12.0, 12.0, 12.0}, 1e-9));
        // It agrees with autograd in f64: e^1 and e^-1.
        const Tensor x64 = tensor({1.0, -1.0}, f64);
        const Tensor a = gradient_of(sum_of_exp, x64), b = numeric_gradient(sum_of_exp, x64);
        CAPTURE(a);
        CAPTURE(b);
        LAB_CHECK("in f64 the central difference of sum(e^x) at 1 agrees with autograd's e^1 within 1e-8",
                  std::abs(a.at({0}) - b.at({0})) < 1e-8);
        LAB_CHECK("in f64 the central difference of sum(e^x) at -1 is e^-1 within 1e-8",
                  std::abs(b.at({1}) - std::exp(-1.0)) < 1e-8);
        LAB_CHECK("an f64 x is left as it was too: x.to(f64) is x itself, so the nudges need a copy of it",
                  x64.to_vector() == std::vector<double>{1.0, -1.0});
    }

    TEST_CASE("lab 03.3: grad_fn_chain walks the graph back to a leaf")
    {
        const Tensor x = tensor({1.0, 2.0}).requires_grad_();
        LAB_CHECK("(x + 1) * 2 ran add, then mul: back from the result come mul, add, and the leaf x's AccumulateGrad",
                  grad_fn_chain(mul(add(x, 1.0), 2.0)) == std::vector<std::string>{"mul", "add", "AccumulateGrad"});
        LAB_CHECK("a leaf has no grad_fn: its chain is empty",
                  grad_fn_chain(x) == std::vector<std::string>{});
        const Tensor x2 = ones({1, 2});
        const Tensor w = ones({3, 2}).requires_grad_();
        LAB_CHECK("x2 needs no gradient, so linear's first input with a gradient edge is the weight w "
                  "(mistake: taking the first input even when it needs no gradient)",
                  grad_fn_chain(sum(relu(linear(x2, w)))) == std::vector<std::string>{"sum", "relu", "linear", "AccumulateGrad"});
        NoGradGuard no_grad;
        LAB_CHECK("nothing is recorded under NoGradGuard: no grad_fn, an empty chain",
                  grad_fn_chain(mul(x, 2.0)) == std::vector<std::string>{});
    }
}
