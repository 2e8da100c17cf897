// tinyamp/distributed/gradients.h under mpirun: data-parallel training by hand. N ranks, each on
// its share of every global batch, averaging gradients with all_reduce_gradients, train as one
// process with the whole batch would (the same steps up to f32 rounding), and stay identical to
// each other bit for bit; bf16-compressed averaging keeps them identical too, a little off the f32
// result. Each rank computes the one-process reference itself (same seed, same data).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include <tinyamp/tinyamp.h>

#include "tinyamp/distributed/collectives.h"
#include "tinyamp/distributed/gradients.h"
#include "tinyamp/distributed/process_group.h"
#include "tests/distributed/mlp_replicas.h"

using namespace tinyamp;
namespace dist = tinyamp::distributed;

namespace {

Tensor loss_of(const std::vector<Tensor>& p, const Tensor& x, const Tensor& y)
{
    return cross_entropy(linear(relu(linear(x, p[0], p[1])), p[2], p[3]), y);
}

struct Data {
    Tensor x, y;
};
Data global_batch(int step)
{
    Generator generator(100 + std::uint64_t(step));
    const Tensor x = randn({32, 8}, f32, generator);
    const Tensor y = argmax(randn({32, 3}, f32, generator), 1);  // classes 0..2
    return {x, y};
}

// `steps` SGD steps (lr 0.1, momentum 0.9): with `ranks` > 1 this rank takes its share of each
// global batch and averages the gradients with all_reduce_gradients(how).
std::vector<Tensor> train(int steps, bool data_parallel, dist::GradientReduction how = {})
{
    std::vector<Tensor> p = test::small_mlp_parameters(7);
    if (data_parallel) dist::broadcast_parameters(p);
    optim::SGD optimizer(p, {.lr = 0.1, .momentum = 0.9});
    const std::int64_t share = 32 / dist::get_world_size(), first = share * dist::get_rank();
    for (int step = 0; step < steps; ++step) {
        Data d = global_batch(step);
        if (data_parallel) d = {d.x.slice(0, first, first + share), d.y.slice(0, first, first + share)};
        optimizer.zero_grad();
        loss_of(p, d.x, d.y).backward();
        if (data_parallel) dist::all_reduce_gradients(p, how);
        optimizer.step();
    }
    return p;
}

double max_difference(const Tensor& a, const Tensor& b)
{
    const std::vector<double> x = a.to_vector(), y = b.to_vector();
    double worst = 0;
    for (std::size_t i = 0; i < x.size(); ++i) worst = std::max(worst, std::fabs(x[i] - y[i]));
    return worst;
}
double max_difference(const std::vector<Tensor>& a, const std::vector<Tensor>& b)
{
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, max_difference(a[i], b[i]));
    return worst;
}

}  // namespace

TEST_CASE("data-parallel training with averaged f32 gradients equals one process with the global batch")
{
    const std::vector<Tensor> one_process = train(20, false);
    const std::vector<Tensor> parallel = train(20, true);
    const double difference = max_difference(parallel, one_process);
    MESSAGE(dist::rank_name() << ": largest parameter difference from one process after 20 steps: " << difference);
    CHECK(difference < 1e-5);  // the same sums in another order, 20 steps of f32
    CHECK(test::replicas_identical(parallel));
}

TEST_CASE("bf16-compressed gradient averaging keeps the replicas identical, a little off the f32 result")
{
    const std::vector<Tensor> f32_average = train(20, true);
    const std::vector<Tensor> bf16_average = train(20, true, {.dtype = bf16});
    CHECK(test::replicas_identical(bf16_average));
    const double difference = max_difference(bf16_average, f32_average);
    MESSAGE(dist::rank_name() << ": bf16-compressed against f32 averaging after 20 steps: " << difference);
    CHECK(difference > 0.0);   // bf16 rounds the gradients: the runs part
    CHECK(difference < 0.05);  // but not by much in 20 steps
}

TEST_CASE("all_reduce_gradients buckets: any bucket size gives the same averages, and a missing gradient counts as zeros")
{
    std::vector<Tensor> p = test::small_mlp_parameters(7);
    const Data d = global_batch(0);
    loss_of(p, d.x, d.y).backward();
    std::vector<Tensor> reference;
    for (const Tensor& t : p) reference.push_back(t.grad().clone());
    dist::all_reduce_gradients(p);  // one 25 MiB bucket: all four gradients together
    std::vector<Tensor> one_bucket;
    for (const Tensor& t : p) one_bucket.push_back(t.grad().clone());
    for (std::size_t i = 0; i < p.size(); ++i) p[i].set_grad(reference[i].clone());
    dist::all_reduce_gradients(p, {.bucket_bytes = 64});  // a bucket per gradient (each is over 64 bytes or alone)
    for (std::size_t i = 0; i < p.size(); ++i) CHECK(p[i].grad().to_vector() == one_bucket[i].to_vector());
    // Every rank had the same batch here, so the average is each rank's own gradient.
    for (std::size_t i = 0; i < p.size(); ++i) CHECK(max_difference(one_bucket[i], reference[i]) < 1e-7);

    p[1].set_grad(Tensor());
    if (dist::get_rank() == 0) p[1].set_grad(ones({16}));
    dist::all_reduce_gradients(p);
    CHECK(p[1].grad().to_vector() == std::vector<double>(16, 1.0 / dist::get_world_size()));
}
