// AccumulateGrad's apply(), on the backward engine's floor: it adds gradients with the op `add`,
// which goes through the dispatcher, so it cannot live with Node on the floor below dispatch.
#include <mutex>

#include "tinyamp/autograd/node.h"
#include "tinyamp/support/grad_mode.h"
#include "tinyamp/tensor/layout.h"
#include "tinyamp/ops/elementwise.h"

namespace tinyamp {

namespace {

// Whether `t` is the only handle to a contiguous buffer that no other tensor shares (a gradient
// the engine just computed for this leaf and holds nowhere else): then .grad can take it as it is.
bool owned_alone(const Tensor& t)
{
    return t.impl().use_count() == 1 && t.storage().use_count() == 1 && t.is_contiguous() && t.storage_offset() == 0 &&
           t.storage()->nbytes() == t.nbytes() && !t.grad_fn() && t.device().is_cpu();
}

// The first gradient is copied (contiguous, owned by this leaf alone), and later ones are added
// out of place: a gradient buffer shared with another leaf or branch is never changed later, even
// by in-place updates such as GradScaler's unscale_.
void store(TensorImpl& leaf, const Tensor& grad_output)
{
    std::lock_guard lock(AccumulateGrad::leaf_mutex());  // backward passes on two threads may reach one weight
    if (is_grad_enabled()) {  // create_graph: keep the graph of the gradient itself
        leaf.grad = leaf.grad.defined() ? add(leaf.grad, grad_output) : grad_output;
    } else if (leaf.grad.defined()) {
        leaf.grad = add(leaf.grad, grad_output);
    } else if (owned_alone(grad_output) && grad_output.dtype() == leaf.dtype) {
        leaf.grad = grad_output.detach();  // nobody else holds this buffer: no need to copy it
    } else {
        leaf.grad = layout::clone(grad_output);
    }
}

}  // namespace

std::vector<Tensor> AccumulateGrad::apply(const Tensor& grad_output)
{
    const std::shared_ptr<TensorImpl> leaf = leaf_.lock();
    if (!leaf) return {};  // the parameter is gone: nobody will read its gradient
    store(*leaf, grad_output);
    return {};
}

}  // namespace tinyamp
