// Lab 04: mixed precision by hand. Fill in each TODO; check with:  scripts/lab check 04
// Stuck? scripts/lab hint 04.1 gives a hint, a stronger one each time you ask.
#include "lessons/04_manual_mixed_precision/lab.h"

#include "lessons/support/lab.h"

namespace tinyamp::lab04 {

std::vector<Tensor> make_low_precision_copies(const std::vector<Tensor>& masters, DType dtype)
{
    // TODO(lab 04.1): return, for each master, its copy in `dtype`: a new leaf that requires grad,
    // holding the master's values rounded to `dtype` and sharing no storage with the master (even
    // when `dtype` is the master's own). Example: a master [1, 0.1, 3] gives the bf16 leaf
    // [1, 0.10009765625, 3].
    // BEGIN SOLUTION
    std::vector<Tensor> copies;
    copies.reserve(masters.size());
    for (const Tensor& m : masters) copies.push_back(m.detach().to(dtype).clone().requires_grad_());
    return copies;
    // END SOLUTION
}

void copy_grads_to_masters(const std::vector<Tensor>& copies, const std::vector<Tensor>& masters)
{
    // TODO(lab 04.2): move each copy's gradient to its master: the master's .grad becomes the
    // copy's .grad in the master's dtype, and the copy's .grad is cleared (none). A copy without a
    // gradient leaves its master's .grad as it was. Example: a bf16 copy with .grad [2, 4] leaves
    // its f32 master with the f32 .grad [2, 4], and itself with none.
    // BEGIN SOLUTION
    for (std::size_t i = 0; i < copies.size(); ++i) {
        if (!copies[i].grad().defined()) continue;
        masters[i].set_grad(copies[i].grad().to(masters[i].dtype()));
        copies[i].set_grad(Tensor());
    }
    // END SOLUTION
}

void master_sgd_step(const std::vector<Tensor>& masters, const std::vector<Tensor>& copies, double lr)
{
    // TODO(lab 04.3): one SGD step, w = w - lr * w.grad, on each master that has a gradient,
    // computed in the master's f32; then every copy takes its master's new values, rounded to the
    // copy's dtype. Example: a master 1 with .grad 1 and lr 1e-4 becomes 0.9999, and its bf16 copy
    // stays 1 (the nearest bf16 number); after 100 such steps they are 0.99 and 0.98828125.
    // BEGIN SOLUTION
    NoGradGuard no_grad;
    for (const Tensor& m : masters)
        if (m.grad().defined()) m.copy_(sub(m, mul(m.grad(), lr)));
    for (std::size_t i = 0; i < copies.size(); ++i) copies[i].copy_(masters[i]);
    // END SOLUTION
}

}  // namespace tinyamp::lab04
