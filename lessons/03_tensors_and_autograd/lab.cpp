// Lab 03: tensors and autograd. Fill in each TODO; check with:  scripts/lab check 03
// Stuck? scripts/lab hint 03.1 gives a hint, a stronger one each time you ask.
#include "lessons/03_tensors_and_autograd/lab.h"

#include "lessons/support/lab.h"

namespace tinyamp::lab03 {

Tensor gradient_of(const ScalarFn& fn, const Tensor& x)
{
    // TODO(lab 03.1): return d fn(x) / dx as autograd computes it: shaped like x, in x's dtype.
    // x is left as it was: it need not require grad, and its .grad is not touched. Example: for
    // fn(x) = sum(x * x) at x = [1, 2, 3], the result is [2, 4, 6] and x still requires no grad.
    // BEGIN SOLUTION
    const Tensor leaf = x.detach().clone().requires_grad_();
    fn(leaf).backward();
    return leaf.grad();
    // END SOLUTION
}

Tensor numeric_gradient(const ScalarFn& fn, const Tensor& x, double h)
{
    // TODO(lab 03.2): return d fn(x) / dx by central differences: element i of the result is
    // (fn(x + h e_i) - fn(x - h e_i)) / 2h, with e_i the i-th unit vector, computed in f64
    // whatever x's dtype; an f64 tensor shaped like x, and x is left as it was. Example: for
    // fn(x) = sum(x * x) at x = [1, 2, 3], the result is [2, 4, 6] within 1e-6.
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
    // TODO(lab 03.3): return the names of the graph nodes from t's grad_fn back to a leaf,
    // following at each node its first input that has a gradient edge; empty for a leaf.
    // Example: (x + 1) * 2 with x a leaf that requires grad gives {"mul", "add", "AccumulateGrad"}.
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
