// The collectives in the trace (tinyamp/distributed/collective_trace.h) under mpirun: while a
// trace records, each collective adds one event with its reduction, the dtype its data travelled
// in and the bytes this rank handed in; DistributedDataParallel's buckets are backward events in
// the compressed dtype, one per bucket, fed by the gradients AccumulateGrad wrote; FSDP's gather
// gives the parameters the model's ops use and its reduce-scatter takes the gradients; nothing is
// recorded without a recorder.
#include <doctest/doctest.h>

#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <tinyamp/tinyamp.h>

#include "tinyamp/distributed/collectives.h"
#include "tinyamp/distributed/distributed_data_parallel.h"
#include "tinyamp/distributed/fully_sharded.h"
#include "tinyamp/distributed/gradients.h"
#include "tinyamp/distributed/process_group.h"
#include "tests/distributed/mlp_replicas.h"

using namespace tinyamp;
namespace dist = tinyamp::distributed;

namespace {

// The events of `trace` that are collectives.
std::vector<trace::Event> collectives_in(const trace::Trace& trace)
{
    std::vector<trace::Event> out;
    for (const trace::Event& e : trace.events())
        if (e.collective) out.push_back(e);
    return out;
}

// An 8-16-3 MLP whose weights come from `seed` (as distributed_data_parallel_test.cpp's).
std::shared_ptr<nn::Module> mlp(std::uint64_t seed)
{
    manual_seed(seed);
    return std::make_shared<nn::Sequential>(std::vector<std::shared_ptr<nn::Module>>{
        std::make_shared<nn::Linear>(8, 16), std::make_shared<nn::ReLU>(), std::make_shared<nn::Linear>(16, 3)});
}

}  // namespace

TEST_CASE("an all_reduce in bf16 records one event: its reduction, dtype bf16, 2 bytes an element, this rank of the group")
{
    const Tensor t = full({5}, double(dist::get_rank() + 1), bf16);
    trace::Trace recorded;
    {
        trace::TraceRecorder recorder(recorded);
        dist::all_reduce(t, dist::ReduceOp::AVG);  // its division by the world size is no event of its own
    }
    REQUIRE(recorded.events().size() == 1);
    const trace::Event& e = recorded.events()[0];
    CHECK(e.op == "all_reduce");
    CHECK(e.phase == trace::Phase::forward);
    REQUIRE(e.collective);
    CHECK(e.collective->reduce_op == "AVG");
    CHECK(e.collective->dtype == bf16);
    CHECK(e.collective->bytes == 2 * 5);
    CHECK(e.collective->world_size == dist::get_world_size());
    CHECK(e.collective->rank == dist::get_rank());
    CHECK(e.collective->root == -1);
    // In place: it took and gave the same tensor, the result with its value statistics.
    REQUIRE(e.inputs.size() == 1);
    REQUIRE(e.outputs.size() == 1);
    CHECK(e.inputs[0].id == t.id());
    CHECK(e.outputs[0].id == t.id());
    CHECK(e.outputs[0].dtype == bf16);
    CHECK(e.outputs[0].has_stats);
    CHECK(e.why.find("all_reduce of 5 bf16 elements, AVG") != std::string::npos);
    // Its JSON keeps the collective, and the text line says it.
    const trace::Trace back = trace::Trace::from_json(recorded.to_json());
    REQUIRE(back.events()[0].collective);
    CHECK(back.events()[0].collective->bytes == 10);
    CHECK(back.events()[0].collective->dtype == bf16);
    std::ostringstream line;
    line << e;
    CHECK(line.str().find("(collective: AVG in bf16, 10 bytes, rank " + std::to_string(dist::get_rank()) + " of " +
                          std::to_string(dist::get_world_size()) + ")") != std::string::npos);
}

TEST_CASE("no event without a recorder, and none after it ended")
{
    const Tensor t = full({4}, 1.0, bf16);
    dist::all_reduce(t);  // no recorder: nothing to record into
    trace::Trace recorded;
    {
        trace::TraceRecorder recorder(recorded);
        dist::all_reduce(t);
    }
    dist::all_reduce(t);
    dist::broadcast(t, 0);
    CHECK(recorded.events().size() == 1);
}

TEST_CASE("broadcast, all_gather_into_tensor and reduce_scatter_tensor record what this rank handed in")
{
    const int n = dist::get_world_size();
    const Tensor b = full({3}, 1.0, f32);
    const Tensor in = full({2}, 1.0, f16), gathered = zeros({2 * n}, f16);
    const Tensor whole = full({2 * n}, 1.0, f32), part = zeros({2}, f32);
    trace::Trace recorded;
    {
        trace::TraceRecorder recorder(recorded);
        dist::broadcast(b, 0);
        dist::all_gather_into_tensor(gathered, in);
        dist::reduce_scatter_tensor(part, whole, dist::ReduceOp::MAX);
    }
    const std::vector<trace::Event> events = collectives_in(recorded);
    REQUIRE(events.size() == 3);
    REQUIRE(recorded.events().size() == 3);
    CHECK(events[0].op == "broadcast");
    CHECK(events[0].collective->reduce_op == "");
    CHECK(events[0].collective->root == 0);
    CHECK(events[0].collective->bytes == (dist::get_rank() == 0 ? 12 : 0));  // only the source sends
    CHECK(events[1].op == "all_gather_into_tensor");
    CHECK(events[1].collective->dtype == f16);
    CHECK(events[1].collective->bytes == 4);
    CHECK(events[1].inputs[0].id == in.id());
    CHECK(events[1].outputs[0].id == gathered.id());
    CHECK(events[2].op == "reduce_scatter_tensor");
    CHECK(events[2].collective->reduce_op == "MAX");
    CHECK(events[2].collective->bytes == 2 * n * 4);
    CHECK(events[2].outputs[0].id == part.id());
}

TEST_CASE("all_reduce_gradients by hand records one all_reduce per bucket, of the gradients, and none of its inner ops")
{
    const std::vector<Tensor> params = test::small_mlp_parameters(3);
    for (const Tensor& p : params) p.set_grad(full(p.shape(), 1.0));
    const std::vector<std::uint64_t> grads_before = {params[0].grad().id(), params[1].grad().id()};
    trace::Trace recorded;
    {
        trace::TraceRecorder recorder(recorded);
        // 16x8 + 16 = 144 f16 elements (288 bytes) fit one bucket, the second layer's 51 another.
        dist::all_reduce_gradients(params, {.dtype = f16, .bucket_bytes = 300});
    }
    REQUIRE(recorded.events().size() == 2);  // no cat, to or div events
    const trace::Event& first = recorded.events()[0];
    CHECK(first.op == "all_reduce");
    CHECK(first.phase == trace::Phase::forward);  // not in backward()
    CHECK(first.collective->dtype == f16);
    CHECK(first.collective->bytes == 2 * 144);
    REQUIRE(first.inputs.size() == 2);
    CHECK(first.inputs[0].id == grads_before[0]);
    CHECK(first.inputs[1].id == grads_before[1]);
    REQUIRE(first.outputs.size() == 2);
    CHECK(first.outputs[0].id == params[0].grad().id());
    CHECK(first.outputs[0].dtype == f32);  // written back in the gradients' dtype
    CHECK(recorded.events()[1].collective->bytes == 2 * 51);
}

TEST_CASE("DistributedDataParallel with bf16 compression: one backward all_reduce in bf16 per bucket, after the gradients it sends")
{
    // 25 bytes a bucket at most: each of the four parameters is a bucket of its own.
    auto ddp = std::make_shared<dist::DistributedDataParallel>(mlp(5), dist::DistributedDataParallelOptions{.gradient_dtype = bf16,
                                                                                                          .bucket_bytes = 25});
    REQUIRE(ddp->bucket_count() == 4);
    Generator generator(40 + std::uint64_t(dist::get_rank()));
    const Tensor x = randn({4, 8}, f32, generator), y = argmax(randn({4, 3}, f32, generator), 1);
    trace::Trace recorded;
    {
        trace::TraceRecorder recorder(recorded);
        cross_entropy((*ddp)(x), y).backward();
    }
    const std::vector<trace::Event> all_reduces = collectives_in(recorded);
    REQUIRE(all_reduces.size() == 4);
    std::int64_t bytes = 0;
    std::set<std::uint64_t> made;  // the tensors earlier events gave
    std::size_t checked = 0;
    for (const trace::Event& e : recorded.events()) {
        CHECK(e.op != "cat");  // the buckets' own ops are part of their events
        if (e.collective) {
            CAPTURE(e.seq);
            CHECK(e.op == "all_reduce");
            CHECK(e.phase == trace::Phase::backward);
            CHECK(e.collective->dtype == bf16);
            CHECK(e.collective->reduce_op == "SUM");
            bytes += e.collective->bytes;
            REQUIRE(e.inputs.size() == 1);
            REQUIRE(e.outputs.size() == 1);
            // The gradient it sends is the one AccumulateGrad wrote, recorded before it; it comes
            // back averaged in f32, named as AccumulateGrad names it.
            CHECK(made.count(e.inputs[0].id) == 1);
            CHECK(e.inputs[0].dtype == f32);
            CHECK(e.outputs[0].dtype == f32);
            CHECK(e.outputs[0].name.find("module.") == 0);
            CHECK(e.outputs[0].name.find(".grad") != std::string::npos);
            ++checked;
        }
        for (const trace::TensorInfo& t : e.outputs) made.insert(t.id);
    }
    CHECK(checked == 4);
    CHECK(bytes == 2 * (16 * 8 + 16 + 3 * 16 + 3));  // every gradient element once, 2 bytes each
    // Each all_reduce comes right after the AccumulateGrad whose gradient completed its bucket.
    for (std::size_t i = 1; i < recorded.events().size(); ++i)
        if (recorded.events()[i].collective) CHECK(recorded.events()[i - 1].op == "AccumulateGrad");
}

TEST_CASE("DistributedDataParallel's default bucket: one all_reduce for the whole model, in the gradients' f32")
{
    auto ddp = std::make_shared<dist::DistributedDataParallel>(mlp(6));
    const Tensor x = full({2, 8}, 0.5), y = tensor({0.0, 2.0}).to(i64);
    trace::Trace recorded;
    {
        trace::TraceRecorder recorder(recorded);
        cross_entropy((*ddp)(x), y).backward();
    }
    const std::vector<trace::Event> all_reduces = collectives_in(recorded);
    REQUIRE(all_reduces.size() == 1);
    CHECK(all_reduces[0].phase == trace::Phase::backward);
    CHECK(all_reduces[0].collective->dtype == f32);
    CHECK(all_reduces[0].collective->bytes == 4 * 195);
    CHECK(all_reduces[0].inputs.size() == 4);
    CHECK(recorded.events().back().op == "all_reduce");  // the last gradient completes the one bucket
}

TEST_CASE("FullyShardedDataParallel in bf16: a forward all_gather that gives the module's parameters, a backward reduce_scatter of their gradients")
{
    auto fsdp = std::make_shared<dist::FullyShardedDataParallel>(mlp(7), dist::MixedPrecision{.param_dtype = bf16});
    const Tensor x = full({2, 8}, 0.5), y = tensor({0.0, 2.0}).to(i64);
    trace::Trace recorded;
    {
        trace::TraceRecorder recorder(recorded);
        cross_entropy((*fsdp)(x).to(f32), y).backward();
    }
    const std::vector<trace::Event> collectives = collectives_in(recorded);
    REQUIRE(collectives.size() == 2);
    const trace::Event &gather = collectives[0], &scatter = collectives[1];
    const std::int64_t world = dist::get_world_size();
    const std::int64_t shard = (195 + world - 1) / world;  // 195 weights, padded to a multiple of the ranks
    CHECK(gather.op == "all_gather_into_tensor");
    CHECK(gather.phase == trace::Phase::forward);
    CHECK(gather.collective->dtype == bf16);
    CHECK(gather.collective->bytes == 2 * shard);
    REQUIRE(gather.inputs.size() == 1);
    CHECK(gather.inputs[0].dtype == f32);  // the f32 shard, sent as bf16
    REQUIRE(gather.outputs.size() == 4);
    std::set<std::uint64_t> gathered;
    for (const trace::TensorInfo& p : gather.outputs) {
        CHECK(p.dtype == bf16);
        gathered.insert(p.id);
    }
    CHECK(scatter.op == "reduce_scatter_tensor");
    CHECK(scatter.phase == trace::Phase::backward);
    CHECK(scatter.collective->dtype == bf16);  // reduce_dtype unset: param_dtype's
    CHECK(scatter.collective->reduce_op == "SUM");
    CHECK(scatter.collective->bytes == 2 * shard * dist::get_world_size());
    CHECK(scatter.inputs.size() == 4);
    REQUIRE(scatter.outputs.size() == 1);
    CHECK(scatter.outputs[0].dtype == f32);  // added to the f32 shard's gradient
    // The linears take their weights from the gather, and the scatter its gradients from
    // AccumulateGrad; FSDP's own casts, views and cat are no events.
    std::set<std::uint64_t> made;
    int weights_from_gather = 0;
    for (const trace::Event& e : recorded.events()) {
        CHECK(e.op != "cat");
        CHECK(e.op != "slice");
        if (e.op == "linear" && e.phase == trace::Phase::forward) weights_from_gather += int(gathered.count(e.inputs.at(1).id));
        if (e.op == "reduce_scatter_tensor")
            for (const trace::TensorInfo& g : e.inputs) CHECK(made.count(g.id) == 1);
        for (const trace::TensorInfo& t : e.outputs) made.insert(t.id);
    }
    CHECK(weights_from_gather == 2);
}
