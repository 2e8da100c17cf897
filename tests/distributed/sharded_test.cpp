// tinyamp/distributed/sharded.h under mpirun: ZeRO's sharded optimizer trains exactly as the
// replicated one, holds a share of its state, and the sharded gradients' trap: a plain
// GradScaler lets the ranks disagree on an overflow only one shard saw, ShardedGradScaler agrees.
#include <doctest/doctest.h>

#include <cmath>
#include <memory>
#include <vector>

#include <tinyamp/tinyamp.h>

#include "tinyamp/distributed/collectives.h"
#include "tinyamp/distributed/gradients.h"
#include "tinyamp/distributed/process_group.h"
#include "tinyamp/distributed/sharded.h"
#include "tests/distributed/mlp_replicas.h"

using namespace tinyamp;
namespace dist = tinyamp::distributed;

namespace {

// This rank's share of global batch `step`, and its loss.
Tensor share_loss(const std::vector<Tensor>& p, int step)
{
    Generator generator(300 + std::uint64_t(step));
    const Tensor x = randn({32, 8}, f32, generator), y = argmax(randn({32, 3}, f32, generator), 1);
    const std::int64_t share = 32 / dist::get_world_size(), first = share * dist::get_rank();
    return cross_entropy(linear(relu(linear(x.slice(0, first, first + share), p[0], p[1])), p[2], p[3]), y.slice(0, first, first + share));
}

std::unique_ptr<optim::Optimizer> sgd(std::vector<Tensor> params)
{
    return std::make_unique<optim::SGD>(std::move(params), optim::SGDOptions{.lr = 0.1, .momentum = 0.9});
}

std::vector<std::vector<double>> values(const std::vector<Tensor>& tensors)
{
    std::vector<std::vector<double>> out;
    for (const Tensor& t : tensors) out.push_back(t.to_vector());
    return out;
}

}  // namespace

TEST_CASE("ZeroRedundancyOptimizer trains bit for bit as the replicated optimizer, holding a share of its state")
{
    std::vector<Tensor> replicated = test::small_mlp_parameters(11), sharded = test::small_mlp_parameters(11);
    const auto full_optimizer = sgd(replicated);
    dist::ZeroRedundancyOptimizer zero(sharded, sgd);
    for (int step = 0; step < 10; ++step) {
        full_optimizer->zero_grad();
        share_loss(replicated, step).backward();
        dist::all_reduce_gradients(replicated);
        full_optimizer->step();

        zero.zero_grad();
        share_loss(sharded, step).backward();
        zero.step();
    }
    CHECK(values(sharded) == values(replicated));  // each element updated by the same arithmetic, on its owner
    CHECK(test::replicas_identical(sharded));
    // The state: each rank holds the momentum buffers of its own parameters only.
    const std::int64_t mine = zero.optimizer_state_bytes(), all = dist::optimizer_state_bytes(*full_optimizer);
    const Tensor total = full({1}, double(mine), f64);
    dist::all_reduce(total);
    MESSAGE(dist::rank_name() << ": optimizer state " << mine << " bytes of a replicated optimizer's " << all);
    CHECK(total.item() == double(all));                                  // the shards add up to the whole
    if (dist::get_world_size() == 2) CHECK(mine <= all * 3 / 4);         // and split it roughly in half
}

TEST_CASE("an overflow in one rank's gradient shard: GradScaler lets the ranks disagree, ShardedGradScaler does not")
{
    if (dist::get_world_size() != 2) {
        MESSAGE("needs 2 ranks");
        return;
    }
    // One iteration with a scaler of each kind; the overflow lands in parameter 0's gradient,
    // which only its owner keeps (as an f16 layer whose gradient overflowed would).
    const auto one_iteration = [](amp::GradScaler& scaler) {
        std::vector<Tensor> p = test::small_mlp_parameters(11);
        dist::ZeroRedundancyOptimizer zero(p, sgd);
        scaler.scale(share_loss(p, 0)).backward();
        zero.reduce_gradients();
        if (zero.owner(0) == dist::get_rank()) p[0].grad().set({0, 0}, INFINITY);
        const bool stepped = scaler.step(zero.local_optimizer());
        zero.sync_parameters();
        scaler.update();
        return std::pair{stepped, scaler.get_scale()};
    };
    const auto everyone = [](double mine) {  // {min, max} of a number over the ranks
        const Tensor lo = full({1}, -mine, f64), hi = full({1}, mine, f64);
        dist::all_reduce(lo, dist::ReduceOp::MAX);
        dist::all_reduce(hi, dist::ReduceOp::MAX);
        return std::pair{-lo.item(), hi.item()};
    };

    amp::GradScaler plain("cpu");
    const auto [plain_stepped, plain_scale] = one_iteration(plain);
    const auto stepped_range = everyone(plain_stepped ? 1.0 : 0.0);
    const auto scale_range = everyone(plain_scale);
    CHECK(stepped_range == std::pair{0.0, 1.0});            // one rank skipped, the other stepped
    CHECK(scale_range == std::pair{32768.0, 65536.0});      // and their scales now differ

    dist::ShardedGradScaler sharded("cpu");
    const auto [sharded_stepped, sharded_scale] = one_iteration(sharded);
    CHECK_FALSE(sharded_stepped);                           // every rank skipped
    CHECK(everyone(sharded_scale) == std::pair{32768.0, 32768.0});
}
