#include "tinyamp/distributed/gradients.h"

#include "tinyamp/distributed/collectives.h"
#include "tinyamp/distributed/mpi_waiting.h"
#include "tinyamp/distributed/process_group.h"
#include "tinyamp/ops/elementwise.h"
#include "tinyamp/ops/join.h"
#include "tinyamp/support/error.h"
#include "tinyamp/support/grad_mode.h"
#include "tinyamp/tensor/factories.h"

namespace tinyamp::distributed {
namespace {

// Parameters [first, last) as one flat bucket of their gradients in `dtype` (zeros for a missing
// gradient), averaged over the ranks, then written back into each gradient.
void reduce_bucket(const std::vector<Tensor>& parameters, std::size_t first, std::size_t last, DType dtype)
{
    std::vector<Tensor> pieces;
    for (std::size_t i = first; i < last; ++i) {
        const Tensor& p = parameters[i];
        const Tensor grad = p.grad().defined() ? p.grad() : zeros(p.shape(), p.dtype());
        pieces.push_back(grad.reshape({-1}).to(dtype));
    }
    // The division makes the bucket a tensor of its own (a lone gradient is not reduced in place).
    const Tensor bucket = (pieces.size() == 1 ? pieces[0] : cat(pieces)) / double(get_world_size());
    all_reduce(bucket, ReduceOp::SUM);
    std::int64_t offset = 0;
    for (std::size_t i = first; i < last; ++i) {
        const Tensor& p = parameters[i];
        const Tensor average = bucket.slice(0, offset, offset + p.numel()).reshape(p.shape());
        offset += p.numel();
        const DType grad_dtype = p.grad().defined() ? p.grad().dtype() : p.dtype();
        p.set_grad(average.to(grad_dtype).contiguous());
    }
}

}  // namespace

void all_reduce_gradients(const std::vector<Tensor>& parameters, GradientReduction how)
{
    detail::check_initialized("all_reduce_gradients");
    TINYAMP_CHECK(how.bucket_bytes > 0, value, "all_reduce_gradients: bucket_bytes must be positive, got ", how.bucket_bytes);
    NoGradGuard no_grad;  // the averaging is not part of any graph
    // The dtype parameter i's gradient travels in.
    const auto dtype_of = [&](std::size_t i) {
        const Tensor& p = parameters[i];
        TINYAMP_CHECK(p.defined(), value, "all_reduce_gradients: parameter ", i, " is an undefined tensor");
        return how.dtype.value_or(p.grad().defined() ? p.grad().dtype() : p.dtype());
    };
    // Consecutive parameters of one gradient dtype share a bucket up to bucket_bytes.
    std::size_t first = 0;
    while (first < parameters.size()) {
        const DType dtype = dtype_of(first);
        std::int64_t bytes = parameters[first].numel() * dtype_size(dtype);
        std::size_t last = first + 1;
        while (last < parameters.size() && dtype_of(last) == dtype && bytes + parameters[last].numel() * dtype_size(dtype) <= how.bucket_bytes)
            bytes += parameters[last++].numel() * dtype_size(dtype);
        reduce_bucket(parameters, first, last, dtype);
        first = last;
    }
}

void broadcast_parameters(const std::vector<Tensor>& tensors, int src)
{
    detail::check_initialized("broadcast_parameters");
    NoGradGuard no_grad;
    for (const Tensor& t : tensors) {
        if (t.is_contiguous()) {
            broadcast(t, src);
            continue;
        }
        const Tensor dense = t.contiguous();
        broadcast(dense, src);
        t.copy_(dense);
    }
}

}  // namespace tinyamp::distributed
