// Lab 3: tensors and autograd. Fill in each TODO; check with:  build/lessons/labs -ts=lab03
#include "lessons/03_tensors_and_autograd/lab.h"

#include "lessons/support/lab.h"

namespace tinyamp::lab03 {

Tensor gradient_of(const ScalarFn& fn, const Tensor& x)
{
    // TODO(lab 03.1): make a leaf of your own that requires grad (a copy of x, so x is not changed),
    // run fn on it, call backward() on the result and return the leaf's gradient.
    // Hint: x.detach().clone().requires_grad_(); y.backward(); leaf.grad().
    // BEGIN SOLUTION
    const Tensor leaf = x.detach().clone().requires_grad_();
    fn(leaf).backward();
    return leaf.grad();
    // END SOLUTION
}

Tensor numeric_gradient(const ScalarFn& fn, const Tensor& x, double h)
{
    // TODO(lab 03.2): in an f64 copy of x, nudge one element at a time by +h and -h, evaluate fn
    // (without a graph: NoGradGuard) and store (f+ - f-) / 2h in an f64 result shaped like x.
    // Hint: x.to(f64) returns x itself when x is already f64, so .clone() it before set();
    // to_vector() reads all elements; tensor(values, shape, f64) builds the result.
    // BEGIN SOLUTION
    NoGradGuard no_grad;
    const Tensor probe = x.detach().to(f64).clone().reshape({x.numel()});
    std::vector<double> values = probe.to_vector();
    std::vector<double> grads(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
        const std::int64_t index = static_cast<std::int64_t>(i);
        probe.set({index}, values[i] + h);
        const double up = fn(probe.reshape(x.shape())).item();
        probe.set({index}, values[i] - h);
        const double down = fn(probe.reshape(x.shape())).item();
        probe.set({index}, values[i]);
        grads[i] = (up - down) / (2 * h);
    }
    return tensor(grads, x.shape(), f64);
    // END SOLUTION
}

std::vector<std::string> grad_fn_chain(const Tensor& t)
{
    // TODO(lab 03.3): start at t.grad_fn() (null for a leaf), push node->name(), then move to the
    // node of the first edge in node->next_edges that is valid(); stop when there is none.
    // Hint: Edge has .node (a std::shared_ptr<Node>) and .valid().
    // BEGIN SOLUTION
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
    // END SOLUTION
}

}  // namespace tinyamp::lab03
