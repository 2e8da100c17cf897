// Lab 4: mixed precision by hand. Fill in each TODO; check with:  build/lessons/labs -ts=lab04
#include "lessons/04_manual_mixed_precision/lab.h"

#include "lessons/support/lab.h"

namespace tinyamp::lab04 {

std::vector<Tensor> make_low_precision_copies(const std::vector<Tensor>& masters, DType dtype)
{
    // TODO(lab 04.1): for each master, convert a detached view of it to `dtype` and make the result a
    // leaf that requires grad. Careful: x.to(dtype) returns x itself when the dtype already matches,
    // so clone() to be sure the copy never shares the master's storage.
    // Hint: master.detach().to(dtype).clone().requires_grad_().
    // BEGIN SOLUTION
    std::vector<Tensor> copies;
    copies.reserve(masters.size());
    for (const Tensor& m : masters) copies.push_back(m.detach().to(dtype).clone().requires_grad_());
    return copies;
    // END SOLUTION
}

void copy_grads_to_masters(const std::vector<Tensor>& copies, const std::vector<Tensor>& masters)
{
    // TODO(lab 04.2): for each pair with copy.grad() defined: master.set_grad(copy.grad() converted to
    // master.dtype()), then copy.set_grad(Tensor()) to clear it.
    // Hint: Tensor::grad(), Tensor::set_grad(), Tensor::to(DType).
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
    // TODO(lab 04.3): under NoGradGuard (weights require grad, so in-place writes need it), write
    // master - lr * master.grad() into each master with copy_, then copy each master into its copy
    // (copy_ converts and rounds to the copy's dtype).
    // Hint: master.copy_(sub(master, mul(master.grad(), lr))); copy.copy_(master).
    // BEGIN SOLUTION
    NoGradGuard no_grad;
    for (const Tensor& m : masters)
        if (m.grad().defined()) m.copy_(sub(m, mul(m.grad(), lr)));
    for (std::size_t i = 0; i < copies.size(); ++i) copies[i].copy_(masters[i]);
    // END SOLUTION
}

}  // namespace tinyamp::lab04
