#pragma once
/// \file
/// Collectives over the process group (process_group.h), as torch.distributed names them:
/// all_reduce, broadcast, all_gather_into_tensor, reduce_scatter_tensor.
///
/// They work on CPU tensors that are contiguous, in place or into an output the caller made, in
/// the tensor's own dtype: an all_reduce of a bf16 tensor adds in f32 and rounds the sum to bf16
/// at every step of the reduction, as NCCL's bf16 ring does (each hop adds a rank's values to
/// the bf16 partial sum and rounds), so a bf16 all-reduce loses what bf16 loses. With 2 ranks
/// that is one addition, rounded once. f32 and f64 use MPI's own sums (MPI_FLOAT, MPI_DOUBLE).
///
/// Before moving any data, every process states what it is about to do (which collective,
/// dtype, element count, operation, root): if the processes disagree, each throws the same
/// Error(value) naming what each rank asked for, instead of exchanging mismatched bytes or
/// hanging. A process that never arrives is the group's timeout (process_group.h).
///
/// While a trace records (trace::TraceRecorder), each collective adds one event to it
/// (collective_trace.h): its name, the reduction, the dtype the data travelled in, the bytes this
/// rank handed in, the world size and rank, and the tensors it took and gave.

#include "tinyamp/tensor/tensor.h"

namespace tinyamp::distributed {

/// How all_reduce and reduce_scatter_tensor combine the ranks' values (torch.distributed.ReduceOp).
enum class ReduceOp { SUM, MAX, AVG };
/// "SUM", "MAX" or "AVG", as messages print it.
const char* reduce_op_name(ReduceOp op);

/// Replaces \p tensor on every rank by the combination of all ranks' tensors (same shape and
/// dtype everywhere). AVG is the SUM divided by the world size in the tensor's dtype (one more
/// rounding for 16-bit). Float dtypes only.
void all_reduce(const Tensor& tensor, ReduceOp op = ReduceOp::SUM);

/// Copies rank \p src's \p tensor into every other rank's (same shape and dtype everywhere).
/// Any dtype.
void broadcast(const Tensor& tensor, int src);

/// \p output (world_size x input's elements, flat or shaped) receives every rank's \p input, rank
/// 0's first (torch.distributed.all_gather_into_tensor). Any dtype; both the same dtype.
void all_gather_into_tensor(const Tensor& output, const Tensor& input);

/// \p input (world_size x output's elements) is combined across ranks as all_reduce would, and
/// rank r keeps the r-th slice of the result in \p output (torch.distributed.reduce_scatter_tensor).
/// Float dtypes; both the same dtype.
void reduce_scatter_tensor(const Tensor& output, const Tensor& input, ReduceOp op = ReduceOp::SUM);

namespace detail {
/// The collectives without their trace event, for a caller that records its own:
/// all_reduce_gradients records the gradients a bucket averaged rather than the bucket it packed
/// them into, FullyShardedDataParallel the parameters it gathered and the gradients it scattered.
void all_reduce_untraced(const Tensor& tensor, ReduceOp op);
void all_gather_untraced(const Tensor& output, const Tensor& input);                    ///< as all_gather_into_tensor
void reduce_scatter_untraced(const Tensor& output, const Tensor& input, ReduceOp op);  ///< as reduce_scatter_tensor
}  // namespace detail

}  // namespace tinyamp::distributed
