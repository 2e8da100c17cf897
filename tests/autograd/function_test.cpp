// Custom autograd functions: Function<T> with forward/backward, saved tensors and saved values.
#include <doctest/doctest.h>

#include <string>
#include <type_traits>

#include <tinyamp/tinyamp.h>

#include "tests/support/expect_error.h"

using namespace tinyamp;
using tinyamp::test::error_message;

namespace {

// y = x * scale, with the scale kept as a non-tensor value, in the op's own Saved struct.
struct Scale : Function<Scale> {
    static constexpr const char* name = "scale";
    struct Saved {
        double scale = 1;
    };
    static Tensor forward(ContextWith<Saved>& ctx, const Tensor& x, double scale)
    {
        ctx.saved.scale = scale;
        return mul(x, scale);
    }
    static std::vector<Tensor> backward(ContextWith<Saved>& ctx, const Tensor& grad) { return {mul(grad, ctx.saved.scale)}; }
};

// z = x * y: two tensor inputs, needs_input_grad used to skip work.
struct Product : Function<Product> {
    static constexpr const char* name = "product";
    static inline int computed_grad_for_y = 0;
    static Tensor forward(Context& ctx, const Tensor& x, const Tensor& y)
    {
        ctx.save_for_backward({x, y});
        return mul(x, y);
    }
    static std::vector<Tensor> backward(Context& ctx, const Tensor& grad)
    {
        const auto& saved = ctx.saved_tensors();
        Tensor gy;
        if (ctx.needs_input_grad(1)) {
            ++computed_grad_for_y;
            gy = mul(grad, saved[0]);
        }
        return {mul(grad, saved[1]), gy};
    }
};

struct TooFewGradients : Function<TooFewGradients> {
    static constexpr const char* name = "too_few";
    static Tensor forward(Context&, const Tensor& x, const Tensor& y) { return add(x, y); }
    static std::vector<Tensor> backward(Context&, const Tensor& grad) { return {grad}; }
};

// An op with a Saved struct gets a context that holds one; an op without gets the plain Context.
// (A value never saved, or read as another type, no longer compiles: the old run-time errors are gone.)
static_assert(std::is_same_v<ContextFor<Scale>, ContextWith<Scale::Saved>>);
static_assert(std::is_same_v<ContextFor<TooFewGradients>, Context>);

}  // namespace

TEST_CASE("a custom Function records one node with its own name and backward")
{
    const Tensor x = tensor({1.0, 2.0}, f64).requires_grad_();
    const Tensor y = Scale::apply(x, 3.0);
    CHECK(y.grad_fn_name() == "scale");
    CHECK(y.grad_fn()->next_edges.size() == 1);  // the ops inside forward are not recorded
    sum(y).backward();
    CHECK(x.grad().to_vector() == std::vector<double>{3, 3});
    const GradcheckResult r = gradcheck([](const std::vector<Tensor>& in) { return Scale::apply(in[0], -0.5); }, {x});
    CHECK(r.ok);
}

TEST_CASE("needs_input_grad tells backward which gradients are wanted")
{
    Product::computed_grad_for_y = 0;
    const Tensor x = tensor({2.0}).requires_grad_();
    const Tensor y = tensor({5.0});  // no gradient wanted
    sum(Product::apply(x, y)).backward();
    CHECK(x.grad().item() == 5.0);
    CHECK(Product::computed_grad_for_y == 0);
}

TEST_CASE("a Function whose inputs need no gradient records nothing")
{
    const Tensor y = Scale::apply(ones({2}), 2.0);
    CHECK(y.grad_fn() == nullptr);
    CHECK_FALSE(y.requires_grad());
}

TEST_CASE("a backward with the wrong number of gradients is a clear error")
{
    const Tensor x = ones({1}).requires_grad_();
    CHECK(error_message([&] { TooFewGradients::apply(x, x).backward(); }, ErrorKind::state) ==
          "backward of 'too_few' returned 1 gradient(s) but its forward took 2 tensor argument(s); return one per tensor argument (an "
          "undefined Tensor where there is none)");
}
