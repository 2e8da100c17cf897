// Lab 01: counting bytes. Fill in each TODO; check with:  scripts/lab check 01
// Stuck? scripts/lab hint 01.1 gives a hint, a stronger one each time you ask.
#include "lessons/01_why_mixed_precision/lab.h"

#include "lessons/support/lab.h"

namespace tinyamp::lab01 {

std::int64_t bytes_of(const Tensor& t)
{
    // TODO(lab 01.1): return the bytes t's elements take in t's dtype. Example: a 3x4 f32 tensor
    // takes 48 bytes, the same tensor in bf16 24.
    // BEGIN SOLUTION
    return t.numel() * dtype_size(t.dtype());
    // END SOLUTION
}

std::int64_t parameter_bytes(const nn::Module& module)
{
    // TODO(lab 01.2): return the bytes all of the module's parameters take, each in its own dtype.
    // Example: Linear(4, 3) (12 weights, 3 biases) takes 60 bytes, and 30 after to(bf16).
    // BEGIN SOLUTION
    std::int64_t total = 0;
    for (const Tensor& p : module.parameters()) total += bytes_of(p);
    return total;
    // END SOLUTION
}

std::int64_t bytes_allocated_by(const std::function<Tensor()>& make, DType dtype)
{
    // TODO(lab 01.3): call make() and return how many more bytes of `dtype` the allocator holds
    // while its result is alive than before the call. Example: a `make` returning
    // zeros({256}, f32).to(bf16) gives 512 for bf16 and 0 for f32 (the f32 tensor is gone by then).
    // BEGIN SOLUTION
    const std::int64_t before = memory_stats()[dtype].live_bytes;
    const Tensor kept = make();
    return memory_stats()[dtype].live_bytes - before;
    // END SOLUTION
}

}  // namespace tinyamp::lab01
