#include "tinyamp/distributed/gradients.h"

#include "tinyamp/distributed/collective_trace.h"
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

// One bucket's event: the gradients it took (`before`, undefined for a missing one) and the
// averages it wrote back, the bucket's dtype and bytes.
void record_bucket(const std::vector<Tensor>& parameters, std::size_t first, std::size_t last, const std::vector<Tensor>& before,
                   const Tensor& bucket)
{
    std::vector<trace::TensorInfo> took, gave;
    std::string names;
    for (std::size_t i = first; i < last; ++i) {
        const Tensor& p = parameters[i];
        if (before[i - first].defined()) took.push_back(detail::gradient_info(p, before[i - first], false));
        gave.push_back(detail::gradient_info(p, p.grad(), true));
        names.append(names.empty() ? "" : ", ").append(p.name().empty() ? "parameter " + std::to_string(i) : p.name());
    }
    const int ranks = get_world_size();
    const std::size_t count = last - first;
    const std::string why = "all_reduce_gradients: " + std::to_string(count) + (count == 1 ? " gradient (" : " gradients (") + names + ") averaged over " +
                            std::to_string(ranks) + " ranks as one bucket of " + std::to_string(bucket.numel()) + ' ' +
                            dtype_name(bucket.dtype()) + " elements: each divided by " + std::to_string(ranks) + ", summed in " +
                            dtype_name(bucket.dtype()) + ", written back in the gradients' dtype";
    detail::record_collective("all_reduce", detail::collective_on_this_rank("SUM", bucket.dtype(), bucket.nbytes()), std::move(took),
                              std::move(gave), why);
}

// Parameters [first, last) as one flat bucket of their gradients in `dtype` (zeros for a missing
// gradient), averaged over the ranks, then written back into each gradient.
void reduce_bucket(const std::vector<Tensor>& parameters, std::size_t first, std::size_t last, DType dtype)
{
    std::vector<Tensor> pieces, before;
    for (std::size_t i = first; i < last; ++i) {
        const Tensor& p = parameters[i];
        before.push_back(p.grad());
        const Tensor grad = p.grad().defined() ? p.grad() : zeros(p.shape(), p.dtype());
        pieces.push_back(grad.reshape({-1}).to(dtype));
    }
    // The division makes the bucket a tensor of its own (a lone gradient is not reduced in place).
    const Tensor bucket = (pieces.size() == 1 ? pieces[0] : cat(pieces)) / double(get_world_size());
    detail::all_reduce_untraced(bucket, ReduceOp::SUM);  // the event names the gradients, not the bucket
    std::int64_t offset = 0;
    for (std::size_t i = first; i < last; ++i) {
        const Tensor& p = parameters[i];
        const Tensor average = bucket.slice(0, offset, offset + p.numel()).reshape(p.shape());
        offset += p.numel();
        const DType grad_dtype = p.grad().defined() ? p.grad().dtype() : p.dtype();
        p.set_grad(average.to(grad_dtype).contiguous());
    }
    if (trace::current()) record_bucket(parameters, first, last, before, bucket);
}

}  // namespace

void all_reduce_gradients(const std::vector<Tensor>& parameters, GradientReduction how)
{
    detail::check_initialized("all_reduce_gradients");
    TINYAMP_CHECK(how.bucket_bytes > 0, value, "all_reduce_gradients: bucket_bytes must be positive, got ", how.bucket_bytes);
    NoGradGuard no_grad;          // the averaging is not part of any graph
    trace::NestedScope inner_ops;  // its casts, cat and division are part of each bucket's event
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
    trace::NestedScope inner_ops;  // the copies are no ops of their own in a trace; each broadcast is
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
