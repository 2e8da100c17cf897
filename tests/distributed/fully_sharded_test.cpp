// tinyamp/distributed/fully_sharded.h under mpirun: FSDP's idea with its MixedPrecision policy.
// In f32 N ranks train as one process with the global batch; with param_dtype = bf16 the forward
// runs on bf16 parameters and the run stays near the f32 one; reduce_dtype = bf16 makes the
// gradients travel and add in bf16; a rank holds about 1/N of the master weights, gradients and
// optimizer state; ShardedGradScaler agrees on an overflow; wrong input and wrong order are named.
#include <doctest/doctest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <tinyamp/tinyamp.h>

#include "tinyamp/distributed/collectives.h"
#include "tinyamp/distributed/fully_sharded.h"
#include "tinyamp/distributed/gradients.h"
#include "tinyamp/distributed/process_group.h"
#include "tinyamp/distributed/sharded.h"
#include "tests/distributed/mlp_replicas.h"

using namespace tinyamp;
namespace dist = tinyamp::distributed;

namespace {

struct Batch {
    Tensor x, y;
};
// Global batch `step` (32 rows), or this rank's share of it.
Batch global_batch(int step, bool share_of_ranks = false, std::int64_t features = 8, std::int64_t classes = 3)
{
    Generator generator(400 + std::uint64_t(step));
    const Tensor x = randn({32, features}, f32, generator), y = argmax(randn({32, classes}, f32, generator), 1);
    if (!share_of_ranks) return {x, y};
    const std::int64_t share = 32 / dist::get_world_size(), first = share * dist::get_rank();
    return {x.slice(0, first, first + share), y.slice(0, first, first + share)};
}

// 20 SGD steps (lr 0.1, momentum 0.9) of `model` through `call`, on the whole global batch or
// this rank's share; the loss in f32 whatever dtype the model returns.
template <class Call>
void train(nn::Module& model, Call&& call, bool share_of_ranks)
{
    optim::SGD optimizer(model.parameters(), {.lr = 0.1, .momentum = 0.9});
    for (int step = 0; step < 20; ++step) {
        const Batch b = global_batch(step, share_of_ranks);
        optimizer.zero_grad();
        cross_entropy(call(b.x).to(f32), b.y).backward();
        optimizer.step();
    }
}

std::shared_ptr<dist::FullyShardedDataParallel> trained_fsdp(std::uint64_t seed, dist::MixedPrecision policy)
{
    const auto fsdp = std::make_shared<dist::FullyShardedDataParallel>(test::small_mlp(seed), policy);
    train(*fsdp, [&](const Tensor& x) { return (*fsdp)(x); }, true);
    return fsdp;
}

std::vector<Tensor> tensors_of(const nn::NamedTensors& named)
{
    std::vector<Tensor> out;
    for (const auto& [name, t] : named) out.push_back(t);
    return out;
}

}  // namespace

TEST_CASE("FullyShardedDataParallel in f32 trains as one process with the global batch, each rank holding its shard")
{
    const auto reference = test::small_mlp(21);
    train(*reference, [&](const Tensor& x) { return (*reference)(x); }, false);

    const auto fsdp = std::make_shared<dist::FullyShardedDataParallel>(test::small_mlp(21 + std::uint64_t(dist::get_rank())));
    // Its one parameter is this rank's slice of the 195 weights, padded to a multiple of the ranks.
    const std::int64_t padded = (195 + dist::get_world_size() - 1) / dist::get_world_size() * dist::get_world_size();
    REQUIRE(fsdp->parameters().size() == 1);
    CHECK(fsdp->parameters()[0].is_same(fsdp->flat_parameter()));
    CHECK(fsdp->flat_parameter().numel() == padded / dist::get_world_size());
    CHECK(fsdp->flat_parameter().dtype() == f32);
    CHECK(fsdp->named_parameters()[0].first == "flat_param");
    for (const Tensor& p : fsdp->module().parameters()) CHECK(p.numel() == 0);  // the module's own copies are freed
    const auto initial = test::small_mlp(21);                                    // rank 0's, on every rank
    CHECK(test::max_difference(tensors_of(fsdp->full_parameters()), initial->parameters()) == 0.0);

    train(*fsdp, [&](const Tensor& x) { return (*fsdp)(x); }, true);
    const nn::NamedTensors full = fsdp->full_parameters();
    CHECK(full[2].first == "2.weight");
    const double difference = test::max_difference(tensors_of(full), reference->parameters());
    MESSAGE(dist::rank_name() << ": FSDP (f32) against one process after 20 steps: " << difference);
    CHECK(difference < 1e-6);  // the same sums in another order
    for (const Tensor& p : fsdp->module().parameters()) CHECK(p.numel() == 0);  // freed after each backward
}

TEST_CASE("param_dtype = bf16: the forward runs on bf16 parameters, the master shard stays f32, the run stays near f32")
{
    const auto fsdp = std::make_shared<dist::FullyShardedDataParallel>(test::small_mlp(22), dist::MixedPrecision{.param_dtype = bf16});
    const Batch b = global_batch(0, true);
    const Tensor logits = (*fsdp)(b.x);
    CHECK(logits.dtype() == bf16);  // the input was cast to param_dtype too, as PyTorch's root FSDP does
    for (const Tensor& p : fsdp->module().parameters()) {
        CHECK(p.dtype() == bf16);  // gathered in bf16, alive until backward
        CHECK(p.numel() > 0);
    }
    cross_entropy(logits.to(f32), b.y).backward();
    for (const Tensor& p : fsdp->module().parameters()) {
        CHECK(p.numel() == 0);  // freed once the gradients were reduce-scattered
        CHECK_FALSE(p.grad().defined());
    }
    REQUIRE(fsdp->flat_parameter().grad().defined());
    CHECK(fsdp->flat_parameter().grad().dtype() == f32);
    CHECK(fsdp->flat_parameter().dtype() == f32);
    // A second forward and backward without zero_grad adds to the shard's gradient.
    const Tensor first = fsdp->flat_parameter().grad().clone();
    cross_entropy((*fsdp)(b.x).to(f32), b.y).backward();
    CHECK(fsdp->flat_parameter().grad().to_vector() == mul(first, 2.0).to_vector());

    const auto f32_run = trained_fsdp(23, {});
    const auto bf16_run = trained_fsdp(23, {.param_dtype = bf16});
    const double difference = test::max_difference(tensors_of(bf16_run->full_parameters()), tensors_of(f32_run->full_parameters()));
    MESSAGE(dist::rank_name() << ": FSDP param_dtype=bf16 against f32 after 20 steps: " << difference);
    CHECK(difference > 0.0);   // bf16 weights, activations and gradients: the runs part
    CHECK(difference < 0.05);  // but stay close
}

TEST_CASE("reduce_dtype = bf16: the gradients are reduce-scattered in bf16, as DDP's bf16_compress_hook averages them")
{
    // The same f32 model and batch, reduced by FSDP in bf16 and by all_reduce_gradients in bf16.
    const auto fsdp = std::make_shared<dist::FullyShardedDataParallel>(test::small_mlp(24), dist::MixedPrecision{.reduce_dtype = bf16});
    const auto replica = test::small_mlp(24);
    const Batch b = global_batch(0, true);
    cross_entropy((*fsdp)(b.x), b.y).backward();
    cross_entropy((*replica)(b.x), b.y).backward();
    std::vector<Tensor> pieces;
    for (const Tensor& p : replica->parameters()) pieces.push_back(p.grad().reshape({-1}));
    const Tensor local = cat(pieces);
    dist::all_reduce_gradients(replica->parameters(), {.dtype = bf16});
    pieces.clear();
    for (const Tensor& p : replica->parameters()) pieces.push_back(p.grad().reshape({-1}));
    const Tensor averaged = cat(pieces);

    const Tensor mine = fsdp->flat_parameter().grad();
    const std::int64_t first = mine.numel() * dist::get_rank(), last = std::min(first + mine.numel(), averaged.numel());
    const Tensor expected = averaged.slice(0, first, last);
    CHECK(mine.slice(0, 0, last - first).to_vector() == expected.to_vector());  // the same bf16 roundings
    CHECK(mine.to_vector() == mine.to(bf16).to(f32).to_vector());              // every element a bf16 value
    CHECK(local.to_vector() != local.to(bf16).to(f32).to_vector());            // which f32 gradients are not
}

TEST_CASE("a rank holds about 1/world of the master weights, gradients and optimizer state (memory_stats)")
{
    // A 64-256-10 MLP (19210 weights), one SGD step with momentum: replicated, then sharded.
    const auto make_model = [] {
        manual_seed(25);
        return std::make_shared<nn::Sequential>(std::vector<std::shared_ptr<nn::Module>>{
            std::make_shared<nn::Linear>(64, 256), std::make_shared<nn::ReLU>(), std::make_shared<nn::Linear>(256, 10)});
    };
    const Batch b = global_batch(0, true, 64, 10);
    struct Held {
        std::int64_t between_steps, step_peak, optimizer_state;
    };
    // Bytes live after one step (model, gradients, optimizer state), the step's peak above what was
    // live before it, and the optimizer state: what `make` builds, stepped by one iteration.
    const auto measure = [&](bool sharded) {
        const std::int64_t before = memory_stats().total.live_bytes;
        std::shared_ptr<nn::Module> model = make_model();
        if (sharded) model = std::make_shared<dist::FullyShardedDataParallel>(model, dist::MixedPrecision{.param_dtype = bf16});
        optim::SGD optimizer(model->parameters(), {.lr = 0.1, .momentum = 0.9});
        const std::int64_t at_rest = memory_stats().total.live_bytes;
        reset_peak_memory_stats();
        cross_entropy((*model)(b.x).to(f32), b.y).backward();
        if (!sharded) dist::all_reduce_gradients(model->parameters());
        optimizer.step();
        const MemoryStats after = memory_stats();
        return Held{after.total.live_bytes - before, after.total.peak_bytes - at_rest, dist::optimizer_state_bytes(optimizer)};
    };
    const Held replicated = measure(false), sharded = measure(true);
    MESSAGE(dist::rank_name() << ": bytes held between steps, replicated " << replicated.between_steps << ", sharded " << sharded.between_steps
                              << "; a step's peak above that, replicated " << replicated.step_peak << ", sharded (bf16 gathered) "
                              << sharded.step_peak << "; optimizer state " << replicated.optimizer_state << " and " << sharded.optimizer_state);
    const std::int64_t padded = (19210 + dist::get_world_size() - 1) / dist::get_world_size() * dist::get_world_size();
    CHECK(replicated.between_steps == 3 * 19210 * 4);                      // weights, gradients, momentum in f32
    CHECK(sharded.between_steps == 3 * padded / dist::get_world_size() * 4);  // the shard, its gradient, its momentum
    CHECK(sharded.optimizer_state == padded / dist::get_world_size() * 4);
    CHECK(replicated.optimizer_state == 19210 * 4);
    if (dist::get_world_size() == 2) CHECK(sharded.step_peak < replicated.step_peak);
}

TEST_CASE("ShardedGradScaler with FullyShardedDataParallel: an inf in one rank's data makes every rank skip")
{
    const auto fsdp = std::make_shared<dist::FullyShardedDataParallel>(test::small_mlp(26), dist::MixedPrecision{.param_dtype = f16});
    optim::SGD optimizer(fsdp->parameters(), {.lr = 0.1});
    dist::ShardedGradScaler scaler("cpu");
    const std::vector<double> before = fsdp->flat_parameter().to_vector();
    const Batch b = global_batch(0, true);
    const Tensor x = b.x.clone();
    if (dist::get_rank() == 0) x.set({0, 0}, INFINITY);  // only rank 0's data overflows
    scaler.scale(cross_entropy((*fsdp)(x).to(f32), b.y)).backward();
    const bool stepped = scaler.step(optimizer);
    scaler.update();
    CHECK_FALSE(stepped);                                       // every rank skipped
    CHECK(fsdp->flat_parameter().to_vector() == before);        // no shard moved
    CHECK(scaler.get_scale() == 32768.0);                       // every scale halved alike
}

TEST_CASE("an inf in one rank's gradient shard: GradScaler lets the ranks disagree, ShardedGradScaler does not")
{
    if (dist::get_world_size() != 2) {
        MESSAGE("needs 2 ranks");
        return;
    }
    // Each rank checks only its own shard; the overflow is put into rank 0's after the reduce-scatter.
    const auto one_iteration = [](amp::GradScaler& scaler) {
        const auto fsdp = std::make_shared<dist::FullyShardedDataParallel>(test::small_mlp(27));
        optim::SGD optimizer(fsdp->parameters(), {.lr = 0.1});
        const Batch b = global_batch(0, true);
        scaler.scale(cross_entropy((*fsdp)(b.x), b.y)).backward();
        if (dist::get_rank() == 0) fsdp->flat_parameter().grad().set({0}, INFINITY);
        const bool stepped = scaler.step(optimizer);
        scaler.update();
        const Tensor stepped_ranks = full({1}, stepped ? 1.0 : 0.0), scales = full({1}, scaler.get_scale(), f64);
        dist::all_reduce(stepped_ranks);
        dist::all_reduce(scales);
        return std::pair{stepped_ranks.item(), scales.item()};
    };
    amp::GradScaler plain("cpu");
    CHECK(one_iteration(plain) == std::pair{1.0, 32768.0 + 65536.0});  // one rank stepped, one skipped and halved its scale
    dist::ShardedGradScaler sharded("cpu");
    CHECK(one_iteration(sharded) == std::pair{0.0, 2 * 32768.0});       // both skipped and halved
}

TEST_CASE("buffer_dtype converts the module's floating point buffers once, integer buffers stay")
{
    manual_seed(28);
    const auto model = std::make_shared<nn::Sequential>(std::vector<std::shared_ptr<nn::Module>>{
        std::make_shared<nn::Linear>(8, 16), std::make_shared<nn::BatchNorm1d>(16), std::make_shared<nn::ReLU>(),
        std::make_shared<nn::Linear>(16, 3)});
    const auto fsdp = std::make_shared<dist::FullyShardedDataParallel>(model, dist::MixedPrecision{.param_dtype = bf16, .buffer_dtype = bf16});
    for (const auto& [name, buffer] : fsdp->module().named_buffers()) CHECK(buffer.dtype() == (name == "1.num_batches_tracked" ? i64 : bf16));
    const Batch b = global_batch(0, true);
    cross_entropy((*fsdp)(b.x).to(f32), b.y).backward();
    CHECK(fsdp->flat_parameter().grad().defined());
    const Tensor running_mean = fsdp->module().named_buffers()[0].second;
    CHECK(running_mean.dtype() == bf16);  // the training forward updated it in its dtype
    CHECK(sum(mul(running_mean, running_mean)).item() > 0.0);
}

TEST_CASE("FullyShardedDataParallel names what is wrong: dtypes, a module without parameters, backward out of order")
{
    CHECK(test::error_of([] { dist::FullyShardedDataParallel(test::small_mlp(29), {.param_dtype = i64}); })
              .find("MixedPrecision's param_dtype is i64; it must be f64, f32, f16 or bf16") != std::string::npos);
    CHECK(test::error_of([] { dist::FullyShardedDataParallel(test::small_mlp(29), {.reduce_dtype = f8e4m3fn}); })
              .find("reduce_dtype is f8e4m3fn") != std::string::npos);
    CHECK(test::error_of([] { dist::FullyShardedDataParallel(std::make_shared<nn::ReLU>()); }).find("the ReLU has no parameters") !=
          std::string::npos);
    CHECK(test::error_of([] {
              const auto half = test::small_mlp(29);
              half->to(bf16);
              dist::FullyShardedDataParallel fsdp(half);
          }).find("parameter 0.weight is bf16; the master weights are f32") != std::string::npos);

    // A layer that takes no part in the loss: its parameters are named at the next forward.
    const auto fsdp = std::make_shared<dist::FullyShardedDataParallel>(std::make_shared<test::HalfUsed>());
    const Batch b = global_batch(0, true);
    cross_entropy((*fsdp)(b.x), b.y).backward();
    const std::string unused = test::error_of([&] { (*fsdp)(b.x); });
    CHECK(unused.find("received no gradient, so the gradients were never reduce-scattered: unused.weight unused.bias.") != std::string::npos);

    // A second backward through one forward: the gathered parameters are gone.
    const auto model = std::make_shared<dist::FullyShardedDataParallel>(test::small_mlp(29));
    const Tensor loss = cross_entropy((*model)(b.x), b.y);
    loss.backward(Tensor(), /*retain_graph=*/true);
    CHECK(test::error_of([&] { loss.backward(); }).find("this backward belongs to a forward whose gathered parameters are gone") !=
          std::string::npos);
    // So does the backward of a forward that a later forward replaced.
    const Tensor early = cross_entropy((*model)(b.x), b.y);
    cross_entropy((*model)(b.x), b.y);
    CHECK(test::error_of([&] { early.backward(); }).find("replaced by a later forward") != std::string::npos);

    // A forward without backward (evaluation) frees at once, and the next training step works.
    {
        NoGradGuard no_grad;
        CHECK((*model)(b.x).shape() == Shape{b.x.size(0), 3});
    }
    for (const Tensor& p : model->module().parameters()) CHECK(p.numel() == 0);
    cross_entropy((*model)(b.x), b.y).backward();
    CHECK(model->flat_parameter().grad().defined());
}
