// tinyamp/distributed/distributed_data_parallel.h under mpirun: the wrapper makes every replica
// rank 0's, averages the gradients during backward (bucket by bucket), trains as one process with
// the global batch, and reports a parameter that took no part in the loss instead of hanging.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <tinyamp/tinyamp.h>

#include "tinyamp/distributed/collectives.h"
#include "tinyamp/distributed/distributed_data_parallel.h"
#include "tinyamp/distributed/process_group.h"
#include "tests/distributed/mlp_replicas.h"

using namespace tinyamp;
namespace dist = tinyamp::distributed;

namespace {

struct Batch {
    Tensor x, y;
};
Batch global_batch(int step)
{
    Generator generator(200 + std::uint64_t(step));
    return {randn({32, 8}, f32, generator), argmax(randn({32, 3}, f32, generator), 1)};
}

std::vector<std::vector<double>> values(const std::vector<Tensor>& tensors)
{
    std::vector<std::vector<double>> out;
    for (const Tensor& t : tensors) out.push_back(t.to_vector());
    return out;
}

// 20 SGD steps of `model` (called through `call`) on this rank's share of each global batch
// (the whole batch when `share_of_ranks` is false).
template <class Call>
void train(nn::Module& model, Call&& call, bool share_of_ranks)
{
    optim::SGD optimizer(model.parameters(), {.lr = 0.1, .momentum = 0.9});
    const std::int64_t share = share_of_ranks ? 32 / dist::get_world_size() : 32, first = share_of_ranks ? share * dist::get_rank() : 0;
    for (int step = 0; step < 20; ++step) {
        const Batch b = global_batch(step);
        optimizer.zero_grad();
        cross_entropy(call(b.x.slice(0, first, first + share)), b.y.slice(0, first, first + share)).backward();
        optimizer.step();
    }
}

}  // namespace

TEST_CASE("DistributedDataParallel starts every replica as rank 0's and trains as one process with the global batch")
{
    const auto reference = test::small_mlp(1);  // rank 0's seed, on every rank: the one-process run
    train(*reference, [&](const Tensor& x) { return (*reference)(x); }, false);

    // Each rank its own weights:
    const auto ddp = std::make_shared<dist::DistributedDataParallel>(test::small_mlp(1 + std::uint64_t(dist::get_rank())));
    const auto rank0_initial = test::small_mlp(1);
    CHECK(values(ddp->module().parameters()) == values(rank0_initial->parameters()));  // broadcast from rank 0
    CHECK(ddp->named_parameters().front().first == "module.0.weight");
    train(*ddp, [&](const Tensor& x) { return (*ddp)(x); }, true);
    const double difference = test::max_difference(ddp->module().parameters(), reference->parameters());
    MESSAGE(dist::rank_name() << ": DDP against one process after 20 steps: " << difference);
    CHECK(difference < 1e-5);
    CHECK(test::replicas_identical(ddp->parameters()));
}

TEST_CASE("DistributedDataParallel's buckets: one bucket or one per parameter give the same bits")
{
    const auto one = std::make_shared<dist::DistributedDataParallel>(test::small_mlp(3));
    const auto many = std::make_shared<dist::DistributedDataParallel>(test::small_mlp(3), dist::DistributedDataParallelOptions{.bucket_bytes = 4});
    CHECK(one->bucket_count() == 1);
    CHECK(many->bucket_count() == 4);
    train(*one, [&](const Tensor& x) { return (*one)(x); }, true);
    train(*many, [&](const Tensor& x) { return (*many)(x); }, true);
    CHECK(values(one->parameters()) == values(many->parameters()));  // each element averaged alike, whatever its bucket
}

TEST_CASE("DistributedDataParallel with bf16-compressed gradients keeps the replicas identical")
{
    const auto ddp =
        std::make_shared<dist::DistributedDataParallel>(test::small_mlp(4), dist::DistributedDataParallelOptions{.gradient_dtype = bf16});
    train(*ddp, [&](const Tensor& x) { return (*ddp)(x); }, true);
    CHECK(test::replicas_identical(ddp->parameters()));
}

TEST_CASE("a parameter that took no part in the loss is named at the next forward, on every rank")
{
    const auto ddp = std::make_shared<dist::DistributedDataParallel>(std::make_shared<test::HalfUsed>(),
                                                                     dist::DistributedDataParallelOptions{.bucket_bytes = 4});
    const Batch b = global_batch(0);
    cross_entropy((*ddp)(b.x), b.y).backward();
    std::string message;
    try {
        (*ddp)(b.x);
    } catch (const Error& e) {
        message = e.what();
    }
    CHECK(message.find("module.unused.weight") != std::string::npos);
    CHECK(message.find("module.unused.bias") != std::string::npos);
    CHECK(message.find("module.used.weight") == std::string::npos);
    // The group is not left waiting: a collective still works on every rank.
    const Tensor t = ones({1});
    dist::all_reduce(t);
    CHECK(t.item() == dist::get_world_size());
}

TEST_CASE("GradScaler with DistributedDataParallel: a non-finite gradient on one rank makes every rank skip the step")
{
    const auto ddp = std::make_shared<dist::DistributedDataParallel>(test::small_mlp(5));
    optim::SGD optimizer(ddp->parameters(), {.lr = 0.1});
    amp::GradScaler scaler("cpu");
    const std::vector<std::vector<double>> before = values(ddp->parameters());
    Batch b = global_batch(0);
    const std::int64_t share = 32 / dist::get_world_size(), first = share * dist::get_rank();
    Tensor x = b.x.slice(0, first, first + share).clone();
    if (dist::get_rank() == dist::get_world_size() - 1) x.set({0, 0}, INFINITY);  // only the last rank's data overflows
    scaler.scale(cross_entropy((*ddp)(x), b.y.slice(0, first, first + share))).backward();
    const bool stepped = scaler.step(optimizer);
    scaler.update();
    CHECK_FALSE(stepped);                                  // every rank saw the averaged, non-finite gradients
    CHECK(values(ddp->parameters()) == before);            // so no rank moved
    CHECK(scaler.get_scale() == 65536.0 * 0.5);            // and every rank halved its scale alike
    CHECK(test::replicas_identical(ddp->parameters()));
}
