#pragma once
/// \file
/// The trace's events for the collectives: while a trace records on this thread
/// (trace::TraceRecorder), each collective of this floor adds one event, whose `op` is the
/// collective's name and whose trace::Collective says how the data travelled. Its phase is
/// backward inside backward() (DistributedDataParallel's bucket hooks), forward elsewhere.
/// A collective records even inside another op or backward (unlike ops, which record only at
/// the top level): it is where data leaves the rank, which the graph must show.

#include <cstdint>
#include <string>
#include <vector>

#include "tinyamp/trace/recorder.h"

namespace tinyamp::distributed::detail {

/// trace::Collective for this rank of the group: the reduction's name ("" for none), the dtype
/// the data travels in, the bytes this rank hands in, and the source rank of a broadcast (-1
/// for the other collectives).
trace::Collective collective_on_this_rank(const char* reduce_op, DType dtype, std::int64_t bytes, int root = -1);

/// A parameter's gradient as a collective's event names it, "module.0.weight.grad" ("grad" for a
/// parameter without a name), as AccumulateGrad's event does.
trace::TensorInfo gradient_info(const Tensor& parameter, const Tensor& grad, bool with_stats);

/// Adds the event of collective `name` ("all_reduce") to the trace recording on this thread, and
/// nothing when none records (check trace::current() before describing tensors). `took` and
/// `gave` are the tensors it took and gave (trace::describe; `gave` with value statistics);
/// `why` is the event's one line.
void record_collective(const char* name, const trace::Collective& collective, std::vector<trace::TensorInfo> took,
                       std::vector<trace::TensorInfo> gave, std::string why);

}  // namespace tinyamp::distributed::detail
