#include "tinyamp/autograd/node.h"

#include <mutex>

#include "tinyamp/trace/op_timing.h"

namespace tinyamp {

// Guards what leaves share between threads: their lazily made accumulator and their .grad.
std::mutex& AccumulateGrad::leaf_mutex()
{
    static std::mutex m;
    return m;
}

std::uint64_t next_sequence_nr()
{
    thread_local std::uint64_t counter = 0;
    return ++counter;
}

// Each node owns the nodes before it, so freeing a chain of 100000 ops would nest 100000
// destructors and overflow the stack. Instead the outermost destructor collects the nodes that
// would die with it and frees them one at a time; nested destructors only add to its list.
Node::~Node()
{
    thread_local std::vector<std::shared_ptr<Node>>* to_free = nullptr;
    std::vector<std::shared_ptr<Node>> list;
    const bool outermost = to_free == nullptr;
    if (outermost) to_free = &list;
    for (Edge& edge : next_edges)
        if (edge.node && edge.node.use_count() == 1) to_free->push_back(std::move(edge.node));
    next_edges.clear();
    if (!outermost) return;
    while (!list.empty()) {
        std::shared_ptr<Node> node = std::move(list.back());
        list.pop_back();
        node.reset();  // its destructor appends what it owned to `list`
    }
    to_free = nullptr;
}

TensorMeta meta_of(const Tensor& t) { return {t.dtype(), t.shape(), t.device()}; }

AccumulateGrad::AccumulateGrad(const std::shared_ptr<TensorImpl>& leaf) : leaf_(leaf)
{
    const Tensor t(leaf);
    inputs.push_back(meta_of(t));
    output = meta_of(t);
}

std::string AccumulateGrad::name() const { return "AccumulateGrad"; }

void AccumulateGrad::run_post_hooks()
{
    const std::shared_ptr<TensorImpl> leaf = leaf_.lock();
    if (!leaf) return;
    // Outside the leaf lock: a hook may run collectives or other backward work. A copy of the
    // list, so that a hook may remove itself.
    const auto hooks = leaf->post_accumulate_grad_hooks;
    if (hooks.empty()) return;
    const trace::TimedPiece timed("post_accumulate_grad hooks");  // their ops are theirs, not top-level ops
    const Tensor tensor(leaf);
    for (const auto& entry : hooks) entry.second(tensor);
}

// Tensor's graph methods live with the graph: tinyamp/tensor/ is below Node, so it neither names
// a node nor calls these.
std::string Tensor::grad_fn_name() const { return grad_fn() ? grad_fn()->name() : std::string(); }

const Tensor& Tensor::requires_grad_(bool requires_grad) const
{
    TINYAMP_CHECK(!requires_grad || is_floating_point(dtype()), dtype, "only floating point tensors can require gradients, but this tensor is ",
                  dtype_name(dtype()), "; convert it first, e.g. x.to(f32).requires_grad_()");
    TINYAMP_CHECK(requires_grad || is_leaf(), state, "requires_grad_(false) on a tensor computed by '", grad_fn_name(),
                  "': only leaf tensors' flags can change; use x.detach() for a copy-free tensor outside the graph");
    impl()->requires_grad = requires_grad;
    return *this;
}

Edge gradient_edge(const Tensor& t)
{
    const std::shared_ptr<TensorImpl>& impl = t.impl();
    if (impl->grad_fn) return {impl->grad_fn, 0};
    if (!impl->requires_grad) return {};
    std::lock_guard lock(AccumulateGrad::leaf_mutex());  // two threads may use one weight at once
    std::shared_ptr<Node> accumulator = impl->grad_accumulator.lock();
    if (!accumulator) {  // one accumulator per leaf, shared by every op that uses it
        accumulator = std::make_shared<AccumulateGrad>(impl);
        impl->grad_accumulator = accumulator;
    }
    return {accumulator, 0};
}

}  // namespace tinyamp
