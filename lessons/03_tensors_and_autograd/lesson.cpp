// Lesson 3: tensors and autograd. A tensor is a view (shape, strides, offset) of shared storage
// with a dtype; every op on tensors that require grad records a node, and backward() walks those
// nodes in reverse to fill .grad. gradcheck compares that with finite differences, in f64.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "lessons/support/lesson.h"

using namespace tinyamp;

namespace {

// The names of the nodes from t's grad_fn back to a leaf, following the first input that has a
// gradient edge at each node (for a linear layer that is the weight, since x needs no gradient).
std::vector<std::string> chain_of(const Tensor& t)
{
    std::vector<std::string> names;
    std::shared_ptr<Node> node = t.grad_fn();
    while (node) {
        names.push_back(node->name());
        std::shared_ptr<Node> next;
        for (const Edge& e : node->next_edges)
            if (e.valid()) {
                next = e.node;
                break;
            }
        node = next;
    }
    return names;
}

std::string arrows(const std::vector<std::string>& names)
{
    std::string s;
    for (const std::string& n : names) s += (s.empty() ? "" : " <- ") + n;
    return s;
}

double max_abs_diff(const Tensor& a, const Tensor& b)
{
    const std::vector<double> x = a.to_vector(), y = b.to_vector();
    double m = 0;
    for (std::size_t i = 0; i < x.size(); ++i) m = std::max(m, std::abs(x[i] - y[i]));
    return m;
}

// The tiny MLP of this lesson: 3 inputs, 5 hidden units with ReLU, 2 outputs, MSE loss.
struct Mlp {
    Tensor w1, b1, w2, b2;
};

Mlp make_mlp(DType dtype, Generator& gen)
{
    Mlp m;
    m.w1 = mul(randn({5, 3}, f32, gen), 0.5).to(dtype).requires_grad_().set_name("w1");
    m.b1 = mul(randn({5}, f32, gen), 0.1).to(dtype).requires_grad_().set_name("b1");
    m.w2 = mul(randn({2, 5}, f32, gen), 0.5).to(dtype).requires_grad_().set_name("w2");
    m.b2 = zeros({2}, dtype).requires_grad_().set_name("b2");
    return m;
}

Tensor mlp_loss(const Mlp& m, const Tensor& x, const Tensor& target)
{
    return mse_loss(linear(relu(linear(x, m.w1, m.b1)), m.w2, m.b2), target);
}

// The central difference (f(x + h) - f(x - h)) / 2h of f = exp at x = 1, computed with tensors
// of `dtype`: the inputs x +- h and the values exp(x +- h) are all rounded to that dtype.
double central_difference_of_exp(DType dtype, double h)
{
    const double up = exp(scalar_tensor(1.0 + h, dtype)).item();
    const double down = exp(scalar_tensor(1.0 - h, dtype)).item();
    return (up - down) / (2 * h);
}

void run(lesson::Lesson& L)
{
    L.say("A tensor is a handle to storage plus a layout: shape, strides (elements to skip per step\n"
          "along each dim) and an offset. Ops on tensors that require grad record a graph that backward()\n"
          "walks in reverse. Everything mixed precision does later (casts, cached copies, scaled\n"
          "gradients) is made of these pieces.");

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

    L.step("Ops build the graph: leaves, grad_fn, requires_grad");
    L.expect("The weights are leaves that require grad (no grad_fn). x is a leaf that does not. Every result\n"
             "computed from a weight requires grad and has a grad_fn naming the op that made it:\n"
             "loss <- mse_loss <- linear <- relu <- linear, ending at the AccumulateGrad of w2 / w1.");
    Generator gen(0);
    const Mlp m = make_mlp(f32, gen);
    const Tensor x = randn({4, 3}, f32, gen).set_name("x");
    const Tensor target = randn({4, 2}, f32, gen).set_name("target");
    trace::Trace recorded;
    Tensor h, loss;
    {
        trace::TraceRecorder recorder(recorded);
        h = relu(linear(x, m.w1, m.b1));
        loss = mse_loss(linear(h, m.w2, m.b2), target);
        loss.backward();
    }
    std::printf("   w1: leaf %d, requires_grad %d, grad_fn '%s'\n", m.w1.is_leaf(), m.w1.requires_grad(), m.w1.grad_fn_name().c_str());
    std::printf("   x:  leaf %d, requires_grad %d\n", x.is_leaf(), x.requires_grad());
    std::printf("   h:  leaf %d, requires_grad %d, grad_fn '%s'\n", h.is_leaf(), h.requires_grad(), h.grad_fn_name().c_str());
    const std::vector<std::string> chain = chain_of(loss);
    std::printf("   loss = %s, chain of grad_fns: %s\n", lesson::fmt(loss.item()).c_str(), arrows(chain).c_str());
    L.check(m.w1.is_leaf() && m.w1.requires_grad() && m.w1.grad_fn_name().empty() && x.is_leaf() && !x.requires_grad(),
            "w1 is a leaf that requires grad, with no grad_fn; x is a leaf that does not require grad");
    L.check(!h.is_leaf() && h.requires_grad() && h.grad_fn_name() == "relu", "h is not a leaf: grad_fn 'relu'");
    L.check(chain == std::vector<std::string>{"mse_loss", "linear", "relu", "linear", "AccumulateGrad"},
            "the chain is mse_loss <- linear <- relu <- linear <- AccumulateGrad");
    L.write_graph("mlp_graph", recorded,
                  "A tiny MLP's forward (top) and backward (bottom) in f32, from its trace: every op, tensor and "
                  "gradient is blue (f32). Each backward node turns the gradient of an output into gradients of its inputs.");

    L.step("backward() fills .grad, and gradients accumulate");
    L.expect("backward filled .grad of every leaf that requires grad, with its shape and dtype (w1: f32 [5, 3]);\n"
             "x gets none. Running forward and backward again without zeroing ADDS the new gradient:\n"
             "w1.grad becomes exactly twice as large. A second backward through a freed graph is an error.");
    const Tensor g1 = m.w1.grad().clone();
    std::printf("   w1.grad: %s %s, |w1.grad|max %s;  x.grad defined: %d\n", dtype_name(m.w1.grad().dtype()),
                shape_str(m.w1.grad().shape()).c_str(), lesson::fmt(max_abs_diff(m.w1.grad(), zeros_like(m.w1.grad()))).c_str(), x.grad().defined());
    mlp_loss(m, x, target).backward();
    const double doubled = max_abs_diff(m.w1.grad(), mul(g1, 2.0));
    std::printf("   after a second forward+backward: max |w1.grad - 2 * first grad| = %s\n", lesson::fmt(doubled).c_str());
    bool second_backward_threw = false;
    try {
        loss.backward();  // the first graph: its saved tensors were freed by its backward
    } catch (const Error& e) {
        second_backward_threw = true;
        std::printf("   loss.backward() again: %s\n", e.what());
    }
    L.check(m.w1.grad().dtype() == f32 && m.w1.grad().shape() == Shape{5, 3} && !x.grad().defined(),
            "w1.grad is f32 [5, 3] like w1; x has no grad");
    L.check(doubled == 0.0, "a second backward adds: w1.grad is exactly twice the first gradient");
    L.check(second_backward_threw, "backward through the same graph twice (no retain_graph) throws");
    m.w1.set_grad(Tensor());  // what optimizer.zero_grad() does: set_to_none

    L.step("NoGradGuard: no graph, for evaluation and for weight updates");
    L.expect("Inside NoGradGuard the same forward records nothing: the loss has requires_grad false and no\n"
             "grad_fn. An in-place update of a weight (copy_) is refused outside the guard and allowed inside.");
    Tensor eval_loss;
    {
        NoGradGuard no_grad;
        eval_loss = mlp_loss(m, x, target);
    }
    std::printf("   under NoGradGuard: loss %s, requires_grad %d, grad_fn '%s'\n", lesson::fmt(eval_loss.item()).c_str(),
                eval_loss.requires_grad(), eval_loss.grad_fn_name().c_str());
    bool refused = false;
    try {
        m.b2.copy_(zeros({2}));
    } catch (const Error&) {
        refused = true;
    }
    {
        NoGradGuard no_grad;
        m.b2.copy_(sub(m.b2, mul(m.b2.grad(), 0.1)));  // one SGD step on b2, the way optimizers do it
    }
    std::printf("   b2.copy_ with grad mode on: %s; under NoGradGuard: b2 = %s\n", refused ? "refused" : "allowed",
                m.b2.to_string().c_str());
    L.check(!eval_loss.requires_grad() && eval_loss.grad_fn() == nullptr && eval_loss.item() == loss.item(),
            "under NoGradGuard: the same loss value, but no grad_fn and no requires_grad");
    L.check(refused && m.b2.is_leaf() && m.b2.requires_grad(), "copy_ into a weight is refused with grad mode on, allowed under the guard");

    L.step("gradcheck: why finite differences need f64");
    L.expect("(f(x+h) - f(x-h)) / 2h carries a rounding error of up to about eps * |f| / h. For exp at 1 with\n"
             "h = 1e-6 that is 1.2e-7 * 2.7 / 1e-6 = 0.3 in f32 (useless) but 6e-10 in f64. So gradcheck runs\n"
             "in f64, refuses f32 inputs, and the f64 MLP passes it.");
    const double e1 = std::exp(1.0);
    const double d32 = central_difference_of_exp(f32, 1e-6), d64 = central_difference_of_exp(f64, 1e-6);
    std::printf("   d/dx exp(x) at 1 = %.10f;  central difference h=1e-6: f32 %.10f (error %s), f64 %.10f (error %s)\n", e1, d32,
                lesson::fmt(std::abs(d32 - e1)).c_str(), d64, lesson::fmt(std::abs(d64 - e1)).c_str());
    Generator gen64(1);
    const Mlp m64 = make_mlp(f64, gen64);
    const Tensor x64 = randn({4, 3}, f64, gen64), t64 = randn({4, 2}, f64, gen64);
    const auto fn = [&](const std::vector<Tensor>& in) {
        return mlp_loss(Mlp{in[0], in[1], in[2], in[3]}, x64, t64);
    };
    const GradcheckResult ok64 = gradcheck(fn, {m64.w1, m64.b1, m64.w2, m64.b2});
    bool refuses_f32 = false;
    try {
        gradcheck(fn, {m.w1, m.b1, m.w2, m.b2});
    } catch (const Error& e) {
        refuses_f32 = true;
        std::printf("   gradcheck on f32 weights: %s\n", e.what());
    }
    std::printf("   gradcheck of the MLP in f64: %s\n", ok64.ok ? "passed" : ok64.report.c_str());
    L.check(std::abs(d32 - e1) > 1e-2, "in f32 the difference quotient is off by more than 0.01");
    L.check(std::abs(d64 - e1) < 1e-8, "in f64 it is within 1e-8 of e");
    L.check(ok64.ok && refuses_f32, "gradcheck passes for the MLP in f64 (all 32 weights) and refuses f32 inputs");

    L.key_result("loss <- mse_loss <- linear <- relu <- linear <- AccumulateGrad; a 2nd backward doubles .grad exactly");
    L.key_result("central difference of exp at 1, h=1e-6: error " + lesson::fmt(std::abs(d32 - e1)) + " in f32 vs " +
                 lesson::fmt(std::abs(d64 - e1)) + " in f64; gradcheck (f64) passes");
}

const lesson::Registration registered{{3, "tensors_and_autograd", "Tensors and autograd",
                                       "views share storage; ops record a graph that backward() walks; gradcheck in f64", run}};

}  // namespace
