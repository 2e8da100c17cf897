#include "tinyamp/distributed/collectives.h"

#include <climits>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "tinyamp/distributed/collective_trace.h"
#include "tinyamp/distributed/half_reductions.h"
#include "tinyamp/distributed/mpi_waiting.h"
#include "tinyamp/distributed/process_group.h"
#include "tinyamp/ops/elementwise.h"
#include "tinyamp/support/error.h"
#include "tinyamp/support/grad_mode.h"

namespace tinyamp::distributed {
namespace {

// What a rank is about to do, as every rank tells the others before any data moves. `problem`
// is nonzero when this rank found its own arguments wrong (its message is thrown on this rank;
// the others say which rank refused).
struct Intent {
    std::int64_t collective = 0, dtype = 0, numel = 0, op = 0, root = 0, problem = 0;
};
constexpr int kIntentFields = 6;

enum Collective : std::int64_t { kAllReduce = 1, kBroadcast, kAllGather, kReduceScatter };
const char* collective_name(std::int64_t c)
{
    switch (c) {
    case kAllReduce: return "all_reduce";
    case kBroadcast: return "broadcast";
    case kAllGather: return "all_gather_into_tensor";
    case kReduceScatter: return "reduce_scatter_tensor";
    default: return "?";
    }
}

std::string describe(const Intent& i)
{
    std::ostringstream out;
    out << collective_name(i.collective) << " of " << i.numel << ' ' << dtype_name(DType(i.dtype)) << " elements";
    if (i.collective == kAllReduce || i.collective == kReduceScatter) out << ", " << reduce_op_name(ReduceOp(i.op));
    if (i.collective == kBroadcast) out << " from rank " << i.root;
    return out.str();
}

// Every rank's intent, gathered (within the timeout). Throws on every rank alike when a rank
// refused its own arguments or the intents differ, naming each rank's.
void agree(const Intent& mine, const std::string& my_problem)
{
    const int size = get_world_size();
    std::vector<std::int64_t> all(std::size_t(size) * kIntentFields);
    const std::int64_t fields[kIntentFields] = {mine.collective, mine.dtype, mine.numel, mine.op, mine.root, mine.problem};
    MPI_Request request;
    MPI_Iallgather(fields, kIntentFields, MPI_INT64_T, all.data(), kIntentFields, MPI_INT64_T, MPI_COMM_WORLD, &request);
    detail::wait_or_abort(request, "the agreement before " + describe(mine));
    const auto intent_of = [&](int r) {
        const std::int64_t* f = all.data() + std::size_t(r) * kIntentFields;
        return Intent{f[0], f[1], f[2], f[3], f[4], f[5]};
    };
    if (!my_problem.empty()) TINYAMP_FAIL(value, rank_name(), ": ", my_problem);
    for (int r = 0; r < size; ++r)
        TINYAMP_CHECK(intent_of(r).problem == 0, value, collective_name(mine.collective), ": rank ", r,
                      " refused its arguments (its own error says why); no data was exchanged");
    bool same = true;
    for (int r = 1; r < size; ++r) {
        const Intent a = intent_of(0), b = intent_of(r);
        same = same && a.collective == b.collective && a.dtype == b.dtype && a.numel == b.numel && a.op == b.op && a.root == b.root;
    }
    if (same) return;
    std::ostringstream out;
    out << "the processes called different collectives or with different tensors; every rank must make the same call with tensors "
           "of the same dtype and size:";
    for (int r = 0; r < size; ++r) out << "\n  rank " << r << ": " << describe(intent_of(r));
    TINYAMP_FAIL(value, out.str());
}

// What is wrong with `t` as a collective's buffer on this rank ("" when nothing).
std::string buffer_problem(const Tensor& t, const char* role, bool float_only)
{
    std::ostringstream out;
    if (!t.defined())
        out << "the " << role << " tensor is undefined";
    else if (!t.device().is_cpu())
        out << "the " << role << " tensor is on " << t.device().str() << "; collectives here take CPU tensors (call .cpu() first)";
    else if (!t.is_contiguous())
        out << "the " << role << " tensor is not contiguous; pass t.contiguous() and copy the result back";
    else if (float_only && !(t.dtype() == DType::f64 || t.dtype() == DType::f32 || t.dtype() == DType::f16 || t.dtype() == DType::bf16))
        out << "the " << role << " tensor is " << dtype_name(t.dtype()) << "; reductions take f64, f32, f16 or bf16";
    else if (t.nbytes() > INT_MAX)
        out << "the " << role << " tensor has " << t.nbytes() << " bytes; one collective moves at most 2^31 - 1 (split it)";
    return out.str();
}

// What is wrong with a pair whose `whole` must hold world_size x `part`'s elements, of one dtype.
std::string sizes_problem(const Tensor& whole, const char* whole_name, const Tensor& part, const char* part_name)
{
    if (whole.dtype() == part.dtype() && whole.numel() == part.numel() * get_world_size()) return "";
    return std::string("the ") + whole_name + " must have the " + part_name + "'s dtype and world_size x its elements: " + part_name + ' ' +
           std::to_string(part.numel()) + ' ' + dtype_name(part.dtype()) + ", " + whole_name + ' ' + std::to_string(whole.numel()) + ' ' +
           dtype_name(whole.dtype()) + ", world size " + std::to_string(get_world_size());
}

Intent intent(Collective c, const Tensor& t, std::int64_t op, std::int64_t root, const std::string& problem)
{
    return Intent{c, t.defined() ? std::int64_t(t.dtype()) : 0, t.defined() ? t.numel() : 0, op, root, problem.empty() ? 0 : 1};
}

void divide_by_world_size(const Tensor& t)
{
    NoGradGuard no_grad;                    // a collective is not part of any graph
    trace::NestedScope part_of_collective;  // nor an op of its own in a trace: part of the collective's event
    t.copy_(t / double(get_world_size()));  // in t's dtype: one more rounding for f16/bf16
}

// The collective's event while a trace records: `took` as it went in, `gave` as it came out (the
// same tensor for the in-place ones), and the bytes this rank handed in.
void record(const Intent& mine, const Tensor& took, const Tensor& gave, std::int64_t bytes)
{
    if (!trace::current()) return;
    const bool reduces = mine.collective == kAllReduce || mine.collective == kReduceScatter;
    const trace::Collective c = detail::collective_on_this_rank(reduces ? reduce_op_name(ReduceOp(mine.op)) : "", DType(mine.dtype), bytes,
                                                                mine.collective == kBroadcast ? int(mine.root) : -1);
    detail::record_collective(collective_name(mine.collective), c, {trace::describe(took, false)}, {trace::describe(gave, true)},
                              describe(mine) + ", over " + std::to_string(get_world_size()) + " ranks");
}

}  // namespace

const char* reduce_op_name(ReduceOp op)
{
    switch (op) {
    case ReduceOp::SUM: return "SUM";
    case ReduceOp::MAX: return "MAX";
    case ReduceOp::AVG: return "AVG";
    }
    return "?";
}

void all_reduce(const Tensor& tensor, ReduceOp op)
{
    detail::all_reduce_untraced(tensor, op);
    record(intent(kAllReduce, tensor, std::int64_t(op), 0, ""), tensor, tensor, tensor.nbytes());
}

void detail::all_reduce_untraced(const Tensor& tensor, ReduceOp op)
{
    detail::check_initialized("all_reduce");
    const std::string problem = buffer_problem(tensor, "all_reduce", true);
    const Intent mine = intent(kAllReduce, tensor, std::int64_t(op), 0, problem);
    agree(mine, problem);
    if (tensor.numel() == 0) return;
    MPI_Request request;
    MPI_Iallreduce(MPI_IN_PLACE, tensor.data_ptr(), int(tensor.numel()), detail::float_datatype(tensor.dtype()),
                   detail::reduction(tensor.dtype(), op == ReduceOp::MAX), MPI_COMM_WORLD, &request);
    detail::wait_or_abort(request, describe(mine));
    if (op == ReduceOp::AVG) divide_by_world_size(tensor);
}

void broadcast(const Tensor& tensor, int src)
{
    detail::check_initialized("broadcast");
    std::string problem = buffer_problem(tensor, "broadcast", false);
    if (problem.empty() && (src < 0 || src >= get_world_size()))
        problem = "broadcast from rank " + std::to_string(src) + ", but the ranks are 0 to " + std::to_string(get_world_size() - 1);
    const Intent mine = intent(kBroadcast, tensor, 0, src, problem);
    agree(mine, problem);
    if (tensor.numel() > 0) {
        MPI_Request request;
        MPI_Ibcast(tensor.data_ptr(), int(tensor.nbytes()), MPI_BYTE, src, MPI_COMM_WORLD, &request);
        detail::wait_or_abort(request, describe(mine));
    }
    record(mine, tensor, tensor, get_rank() == src ? tensor.nbytes() : 0);  // only the source sends
}

void all_gather_into_tensor(const Tensor& output, const Tensor& input)
{
    detail::all_gather_untraced(output, input);
    record(intent(kAllGather, input, 0, 0, ""), input, output, input.nbytes());
}

void detail::all_gather_untraced(const Tensor& output, const Tensor& input)
{
    detail::check_initialized("all_gather_into_tensor");
    std::string problem = buffer_problem(input, "input", false);
    if (problem.empty()) problem = buffer_problem(output, "output", false);
    if (problem.empty()) problem = sizes_problem(output, "output", input, "input");
    const Intent mine = intent(kAllGather, input, 0, 0, problem);
    agree(mine, problem);
    if (input.numel() > 0) {
        MPI_Request request;
        MPI_Iallgather(input.data_ptr(), int(input.nbytes()), MPI_BYTE, output.data_ptr(), int(input.nbytes()), MPI_BYTE, MPI_COMM_WORLD,
                       &request);
        detail::wait_or_abort(request, describe(mine));
    }
}

void reduce_scatter_tensor(const Tensor& output, const Tensor& input, ReduceOp op)
{
    detail::reduce_scatter_untraced(output, input, op);
    record(intent(kReduceScatter, input, std::int64_t(op), 0, ""), input, output, input.nbytes());
}

void detail::reduce_scatter_untraced(const Tensor& output, const Tensor& input, ReduceOp op)
{
    detail::check_initialized("reduce_scatter_tensor");
    std::string problem = buffer_problem(input, "input", true);
    if (problem.empty()) problem = buffer_problem(output, "output", true);
    if (problem.empty()) problem = sizes_problem(input, "input", output, "output");
    const Intent mine = intent(kReduceScatter, input, std::int64_t(op), 0, problem);
    agree(mine, problem);
    if (output.numel() > 0) {
        MPI_Request request;
        MPI_Ireduce_scatter_block(input.data_ptr(), output.data_ptr(), int(output.numel()), detail::float_datatype(input.dtype()),
                                  detail::reduction(input.dtype(), op == ReduceOp::MAX), MPI_COMM_WORLD, &request);
        detail::wait_or_abort(request, describe(mine));
        if (op == ReduceOp::AVG) divide_by_world_size(output);
    }
}

}  // namespace tinyamp::distributed
