// Lab 21: AMP across processes. Fill in each TODO; check with:  scripts/lab check 21
// Stuck? scripts/lab hint 21.1 gives a hint, a stronger one each time you ask.
// tinyamp::distributed's collectives change a tensor in place on every rank:
//   distributed::all_reduce(t)                            every rank's t becomes the sum of all ranks' t
//   distributed::all_reduce(t, distributed::ReduceOp::MAX) ... their largest
//   distributed::get_world_size(), distributed::get_rank()
#include "lessons/21_amp_across_processes/lab.h"

#include "lessons/support/lab.h"

namespace tinyamp::lab21 {
namespace dist = tinyamp::distributed;

void average_gradients(const std::vector<Tensor>& parameters)
{
    // TODO(lab 21.1): give every parameter the average of its gradient over the ranks: sum every
    // rank's gradient with an all_reduce, divide by the world size, store it with set_grad. Every
    // rank must make the same all_reduces in the same order, so a parameter this rank has no
    // gradient for (p.grad().defined() is false) sends zeros of its shape. Example: gradients 1 on
    // rank 0 and 3 on rank 1 average to 2 on both.
    // BEGIN SOLUTION
    const double world = dist::get_world_size();
    for (const Tensor& p : parameters) {
        const Tensor sum = p.grad().defined() ? p.grad().contiguous().clone() : zeros(p.shape(), p.dtype());
        dist::all_reduce(sum);
        p.set_grad(div(sum, world));
    }
    // END SOLUTION
}

bool found_inf_on_any_rank(bool found_inf_here)
{
    // TODO(lab 21.2): return true on every rank if any rank found an inf/NaN. A collective on a
    // one-element tensor does it. Example: false on rank 0 and true on rank 1 give true on both.
    // BEGIN SOLUTION
    const Tensor flag = full({1}, found_inf_here ? 1.0 : 0.0);
    dist::all_reduce(flag, dist::ReduceOp::MAX);
    return flag.item() > 0;
    // END SOLUTION
}

std::optional<bool> AgreeingGradScaler::agree_on_found_inf(std::optional<bool> local_found_inf)
{
    return found_inf_on_any_rank(local_found_inf.value_or(false));
}

Tensor average_in_bf16(const Tensor& grad)
{
    // TODO(lab 21.3): divide `grad` by the world size, cast it to bf16, all_reduce it (the sum is
    // taken and rounded in bf16), and return it as f32 again. Example: 2 on rank 0 and 2^-8 on
    // rank 1 halve to 1 and 2^-9, whose bf16 sum is 1: rank 1's share is lost (f32 would give 1.00195).
    // BEGIN SOLUTION
    const Tensor share = div(grad, double(dist::get_world_size())).to(bf16);
    dist::all_reduce(share);
    return share.to(f32);
    // END SOLUTION
}

}  // namespace tinyamp::lab21
