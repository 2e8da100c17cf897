#pragma once
// For the tests under mpirun: whether every rank holds the same bits as rank 0, known on every
// rank (rank 0's values are broadcast and compared, then the ranks agree with a MAX).
#include <vector>

#include <tinyamp/tinyamp.h>

#include "tinyamp/distributed/collectives.h"

namespace tinyamp::test {

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
