// Lab 1: counting bytes. Fill in each TODO; check with:  build/lessons/lab_01
#include "lessons/01_why_mixed_precision/lab.h"

#include "lessons/support/lab.h"

namespace tinyamp::lab01 {

std::int64_t bytes_of(const Tensor& t)
{
    // TODO(lab 01.1): elements times bytes per element.
    // Hint: t.numel(), and dtype_size(t.dtype()) is 4 for f32, 2 for f16 and bf16.
    // BEGIN SOLUTION
    return t.numel() * dtype_size(t.dtype());
    // END SOLUTION
}

std::int64_t parameter_bytes(const nn::Module& module)
{
    // TODO(lab 01.2): add up bytes_of over the module's parameters.
    // Hint: module.parameters() returns them as a std::vector<Tensor>.
    // BEGIN SOLUTION
    std::int64_t total = 0;
    for (const Tensor& p : module.parameters()) total += bytes_of(p);
    return total;
    // END SOLUTION
}

std::int64_t bytes_allocated_by(const std::function<Tensor()>& make, DType dtype)
{
    // TODO(lab 01.3): read memory_stats()[dtype].live_bytes, call make() and keep its result alive,
    // read the live bytes again and return the difference.
    // BEGIN SOLUTION
    const std::int64_t before = memory_stats()[dtype].live_bytes;
    const Tensor kept = make();
    return memory_stats()[dtype].live_bytes - before;
    // END SOLUTION
}

}  // namespace tinyamp::lab01
