// Lesson 3: tensors and autograd. A tensor is a view (shape, strides, offset) of shared storage
// with a dtype; every op on tensors that require grad records a node, and backward() walks those
// nodes in reverse to fill .grad. gradcheck compares that with finite differences, in f64.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "lessons/support/lesson.h"
#include "lessons/support/models.h"
#include "lessons/support/trace_queries.h"

using namespace tinyamp;

namespace {

std::string arrows(const std::vector<std::string>& names)
{
    std::string s;
    for (const std::string& n : names) s += (s.empty() ? "" : " <- ") + n;
    return s;
}

// The tiny MLP of this lesson: 3 inputs, 5 hidden units with ReLU, 2 outputs, MSE loss.
lesson::Mlp make_mlp(DType dtype, Generator& gen)
{
    return lesson::Mlp({3, 5, 2}, gen, {.weight_std = {0.5, 0.5}, .bias_std = {0.1, 0}, .dtype = dtype});
}

Tensor mlp_loss(const lesson::Mlp& m, const Tensor& x, const Tensor& target) { return mse_loss(m(x), target); }

// The central difference (f(x + h) - f(x - h)) / 2h of f = exp at x = 1, computed with tensors
// of `dtype`: the inputs x +- h and the values exp(x +- h) are all rounded to that dtype.
double central_difference_of_exp(DType dtype, double h)
{
    const double up = exp(scalar_tensor(1.0 + h, dtype)).item();
    const double down = exp(scalar_tensor(1.0 - h, dtype)).item();
    return (up - down) / (2 * h);
}

void step_views(lesson::Lesson& L)
{
    L.step("Tensors: dtype, shape, strides, and views that share storage");
    L.expect("a = [[0,1,2],[3,4,5]] is f32 [2, 3] with strides [3, 1] (24 bytes). a.t() is [3, 2] with\n"
             "strides [1, 3]: the same 6 numbers read in another order, no copy. Writing 100 into the view\n"
             "changes a. a.to(bf16) is a new tensor of 12 bytes that shares nothing.");
    const Tensor a = arange(0.0, 6.0).reshape({2, 3});
    const Tensor at = a.t();
    std::printf("   a   = %s strides %s, %lld bytes, contiguous %d\n", a.to_string().c_str(), shape_str(a.strides()).c_str(),
                static_cast<long long>(a.nbytes()), a.is_contiguous());
    std::printf("   a.t() shape %s strides %s, contiguous %d, shares storage with a: %d\n", shape_str(at.shape()).c_str(),
                shape_str(at.strides()).c_str(), at.is_contiguous(), at.shares_storage_with(a));
    at.set({0, 1}, 100.0);  // row 0, column 1 of the transpose is a[1][0]
    std::printf("   after a.t()[0][1] = 100:  a = %s\n", a.to_string().c_str());
    const Tensor a16 = a.to(bf16);
    std::printf("   a.to(bf16): %s, %lld bytes, shares storage with a: %d\n", dtype_name(a16.dtype()),
                static_cast<long long>(a16.nbytes()), a16.shares_storage_with(a));
    L.check(a.strides() == Strides{3, 1} && at.strides() == Strides{1, 3}, "a has strides [3, 1], its transpose [1, 3]");
    L.check(at.shares_storage_with(a) && at.is_view() && !at.is_contiguous() && a.at({1, 0}) == 100.0,
            "the transpose is a non-contiguous view of a's storage: writing through it changed a[1][0] to 100");
    L.check(a16.nbytes() == 12 && a.nbytes() == 24 && !a16.shares_storage_with(a), "to(bf16) is a copy with half the bytes (12 vs 24)");
}

// The f32 MLP, its batch, and the loss whose graph step 2 built and backward() ran through once.
struct Example {
    lesson::Mlp m;
    Tensor x, target, loss;
};

Example step_graph(lesson::Lesson& L)
{
    L.step("Ops build the graph: leaves, grad_fn, requires_grad");
    L.expect("The weights are leaves that require grad (no grad_fn). x is a leaf that does not. Every result\n"
             "computed from a weight requires grad and has a grad_fn naming the op that made it:\n"
             "loss <- mse_loss <- linear <- relu <- linear, ending at the AccumulateGrad of w2 / w1.");
    Generator gen(0);
    const lesson::Mlp m = make_mlp(f32, gen);
    const Tensor& w1 = m.weight(1);
    const Tensor x = randn({4, 3}, f32, gen).set_name("x");
    const Tensor target = randn({4, 2}, f32, gen).set_name("target");
    trace::Trace recorded;
    Tensor z1, h, z2, loss;
    {
        trace::TraceRecorder recorder(recorded);
        z1 = linear(x, w1, m.bias(1));
        h = relu(z1);
        z2 = linear(h, m.weight(2), m.bias(2));
        loss = mse_loss(z2, target);
        loss.backward();
    }
    std::printf("   w1: leaf %d, requires_grad %d, grad_fn '%s'\n", w1.is_leaf(), w1.requires_grad(), w1.grad_fn_name().c_str());
    std::printf("   x:  leaf %d, requires_grad %d\n", x.is_leaf(), x.requires_grad());
    std::printf("   h:  leaf %d, requires_grad %d, grad_fn '%s'\n", h.is_leaf(), h.requires_grad(), h.grad_fn_name().c_str());
    // Each result names the op that made it; below the first linear, the backward ends at the node
    // that wrote w1.grad (lab 03.3 walks the same chain through the nodes' edges).
    std::vector<std::string> chain = {loss.grad_fn_name(), z2.grad_fn_name(), h.grad_fn_name(), z1.grad_fn_name()};
    for (const trace::Event* e : lesson::events_named(lesson::backward_events(recorded), "AccumulateGrad"))
        if (!e->outputs.empty() && e->outputs[0].name == "w1.grad") chain.push_back(e->op);
    std::printf("   loss = %s, chain of grad_fns: %s\n", lesson::fmt(loss.item()).c_str(), arrows(chain).c_str());
    L.check(w1.is_leaf() && w1.requires_grad() && w1.grad_fn_name().empty() && x.is_leaf() && !x.requires_grad(),
            "w1 is a leaf that requires grad, with no grad_fn; x is a leaf that does not require grad");
    L.check(!h.is_leaf() && h.requires_grad() && h.grad_fn_name() == "relu", "h is not a leaf: grad_fn 'relu'");
    L.check(chain == std::vector<std::string>{"mse_loss", "linear", "relu", "linear", "AccumulateGrad"},
            "the chain is mse_loss <- linear <- relu <- linear <- AccumulateGrad");
    L.write_graph("mlp_graph", recorded,
                  "A tiny MLP's forward (top) and backward (bottom) in f32, from its trace: every op, tensor and "
                  "gradient is blue (f32). Each backward node turns the gradient of an output into gradients of its inputs.");
    return {m, x, target, loss};
}

void step_accumulate(lesson::Lesson& L, const Example& ex)
{
    L.step("backward() fills .grad, and gradients accumulate");
    L.expect("backward filled .grad of every leaf that requires grad, with its shape and dtype (w1: f32 [5, 3]);\n"
             "x gets none. Running forward and backward again without zeroing ADDS the new gradient:\n"
             "w1.grad becomes exactly twice as large. A second backward through a freed graph is an error.");
    const Tensor& w1 = ex.m.weight(1);
    const Tensor g1 = w1.grad().clone();
    std::printf("   w1.grad: %s %s, |w1.grad|max %s;  x.grad defined: %d\n", dtype_name(w1.grad().dtype()),
                shape_str(w1.grad().shape()).c_str(), lesson::fmt(lesson::max_abs_difference(w1.grad(), zeros_like(w1.grad()))).c_str(),
                ex.x.grad().defined());
    mlp_loss(ex.m, ex.x, ex.target).backward();
    const double doubled = lesson::max_abs_difference(w1.grad(), mul(g1, 2.0));
    std::printf("   after a second forward+backward: max |w1.grad - 2 * first grad| = %s\n", lesson::fmt(doubled).c_str());
    bool second_backward_threw = false;
    try {
        ex.loss.backward();  // the first graph: its saved tensors were freed by its backward
    } catch (const Error& e) {
        second_backward_threw = true;
        std::printf("   loss.backward() again: %s\n", e.what());
    }
    L.check(w1.grad().dtype() == f32 && w1.grad().shape() == Shape{5, 3} && !ex.x.grad().defined(),
            "w1.grad is f32 [5, 3] like w1; x has no grad");
    L.check(doubled == 0.0, "a second backward adds: w1.grad is exactly twice the first gradient");
    L.check(second_backward_threw, "backward through the same graph twice (no retain_graph) throws");
    w1.set_grad(Tensor());  // what optimizer.zero_grad() does: set_to_none
}

void step_no_grad(lesson::Lesson& L, const Example& ex)
{
    L.step("NoGradGuard: no graph, for evaluation and for weight updates");
    L.expect("Inside NoGradGuard the same forward records nothing: the loss has requires_grad false and no\n"
             "grad_fn. An in-place update of a weight (copy_) is refused outside the guard and allowed inside.");
    Tensor eval_loss;
    {
        NoGradGuard no_grad;
        eval_loss = mlp_loss(ex.m, ex.x, ex.target);
    }
    std::printf("   under NoGradGuard: loss %s, requires_grad %d, grad_fn '%s'\n", lesson::fmt(eval_loss.item()).c_str(),
                eval_loss.requires_grad(), eval_loss.grad_fn_name().c_str());
    const Tensor& b2 = ex.m.bias(2);
    bool refused = false;
    try {
        b2.copy_(zeros({2}));
    } catch (const Error&) {
        refused = true;
    }
    {
        NoGradGuard no_grad;
        b2.copy_(sub(b2, mul(b2.grad(), 0.1)));  // one SGD step on b2, the way optimizers do it
    }
    std::printf("   b2.copy_ with grad mode on: %s; under NoGradGuard: b2 = %s\n", refused ? "refused" : "allowed", b2.to_string().c_str());
    L.check(!eval_loss.requires_grad() && eval_loss.grad_fn() == nullptr && eval_loss.item() == ex.loss.item(),
            "under NoGradGuard: the same loss value, but no grad_fn and no requires_grad");
    L.check(refused && b2.is_leaf() && b2.requires_grad(), "copy_ into a weight is refused with grad mode on, allowed under the guard");
}

// The errors of the central difference of exp at 1 (h = 1e-6) in f32 and in f64.
struct DifferenceErrors {
    double f32_error = 0, f64_error = 0;
};

DifferenceErrors step_gradcheck(lesson::Lesson& L, const lesson::Mlp& f32_mlp)
{
    L.step("gradcheck: why finite differences need f64");
    L.expect("(f(x+h) - f(x-h)) / 2h carries a rounding error of up to about eps * |f| / h. For exp at 1 with\n"
             "h = 1e-6 that is 1.2e-7 * 2.7 / 1e-6 = 0.3 in f32 (useless) but 6e-10 in f64. So gradcheck runs\n"
             "in f64, refuses f32 inputs, and the f64 MLP passes it.");
    const double e1 = std::exp(1.0);
    const double d32 = central_difference_of_exp(f32, 1e-6), d64 = central_difference_of_exp(f64, 1e-6);
    std::printf("   d/dx exp(x) at 1 = %.10f;  central difference h=1e-6: f32 %.10f (error %s), f64 %.10f (error %s)\n", e1, d32,
                lesson::fmt(std::abs(d32 - e1)).c_str(), d64, lesson::fmt(std::abs(d64 - e1)).c_str());
    Generator gen64(1);
    const lesson::Mlp m64 = make_mlp(f64, gen64);
    const Tensor x64 = randn({4, 3}, f64, gen64), t64 = randn({4, 2}, f64, gen64);
    const auto fn = [&](const std::vector<Tensor>& in) { return mlp_loss(lesson::Mlp(in), x64, t64); };
    const GradcheckResult ok64 = gradcheck(fn, m64.params());
    bool refuses_f32 = false;
    try {
        gradcheck(fn, f32_mlp.params());
    } catch (const Error& e) {
        refuses_f32 = true;
        std::printf("   gradcheck on f32 weights: %s\n", e.what());
    }
    std::printf("   gradcheck of the MLP in f64: %s\n", ok64.ok ? "passed" : ok64.report.c_str());
    L.check(std::abs(d32 - e1) > 1e-2, "in f32 the difference quotient is off by more than 0.01");
    L.check(std::abs(d64 - e1) < 1e-8, "in f64 it is within 1e-8 of e");
    L.check(ok64.ok && refuses_f32, "gradcheck passes for the MLP in f64 (all 32 weights) and refuses f32 inputs");
    return {std::abs(d32 - e1), std::abs(d64 - e1)};
}

void run(lesson::Lesson& L)
{
    L.say("A tensor is a handle to storage plus a layout: shape, strides (elements to skip per step\n"
          "along each dim) and an offset. Ops on tensors that require grad record a graph that backward()\n"
          "walks in reverse. Everything mixed precision does later (casts, cached copies, scaled\n"
          "gradients) is made of these pieces.");
    step_views(L);
    const Example ex = step_graph(L);
    step_accumulate(L, ex);
    step_no_grad(L, ex);
    const DifferenceErrors errors = step_gradcheck(L, ex.m);
    L.key_result("loss <- mse_loss <- linear <- relu <- linear <- AccumulateGrad; a 2nd backward doubles .grad exactly");
    L.key_result("central difference of exp at 1, h=1e-6: error " + lesson::fmt(errors.f32_error) + " in f32 vs " +
                 lesson::fmt(errors.f64_error) + " in f64; gradcheck (f64) passes");
}

const lesson::Registration registered{{3, "tensors_and_autograd", "Tensors and autograd",
                                       "views share storage; ops record a graph that backward() walks; gradcheck in f64", run}};

}  // namespace
