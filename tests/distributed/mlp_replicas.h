#pragma once
// For the tests under mpirun: a small MLP's parameters, the same on every rank, and whether every
// rank holds the same bits as rank 0.
#include <cstdint>
#include <vector>

#include <tinyamp/tinyamp.h>

#include "tinyamp/distributed/collectives.h"

namespace tinyamp::test {

/// The four tensors of an 8-16-3 MLP (weights from `seed`, biases 0), leaves that require grad.
inline std::vector<Tensor> small_mlp_parameters(std::uint64_t seed)
{
    Generator generator(seed);
    std::vector<Tensor> p = {randn({16, 8}, f32, generator) * 0.3, zeros({16}), randn({3, 16}, f32, generator) * 0.3, zeros({3})};
    for (Tensor& t : p) t = t.detach().requires_grad_();
    return p;
}

/// Whether every rank holds the same bits as rank 0 (rank 0's values broadcast and compared, then
/// the ranks agree with a MAX), known on every rank.
inline bool replicas_identical(const std::vector<Tensor>& tensors)
{
    bool same = true;
    for (const Tensor& t : tensors) {
        const Tensor rank0 = t.detach().clone();
        distributed::broadcast(rank0, 0);
        same = same && rank0.to_vector() == t.to_vector();
    }
    const Tensor differs = tensor({same ? 0.0 : 1.0});
    distributed::all_reduce(differs, distributed::ReduceOp::MAX);
    return differs.item() == 0.0;
}

}  // namespace tinyamp::test
