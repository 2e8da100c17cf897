// Lab 21's checks. Run them with:  scripts/lab check 21  (2 processes under mpiexec). Both ranks
// run every check; each compares numbers both ranks hold after the collectives, so the ranks
// agree on every check, and rank 0 prints them.
#include <cmath>
#include <string>
#include <vector>

#include "lessons/21_amp_across_processes/lab.h"
#include "lessons/support/lab_checks.h"
#include "tinyamp/distributed/gradients.h"
#include "tinyamp/distributed/sharded.h"

using namespace tinyamp;
using namespace tinyamp::lab21;
namespace dist = tinyamp::distributed;

namespace {

int rank() { return dist::get_rank(); }
int world() { return dist::get_world_size(); }

// A leaf of `values` whose .grad is `grad` (none when `grad` is empty).
Tensor parameter_with_grad(const std::vector<double>& values, const std::vector<double>& grad)
{
    const Tensor p = tensor(values, {std::int64_t(values.size())}).requires_grad_();
    if (!grad.empty()) p.set_grad(tensor(grad, {std::int64_t(grad.size())}));
    return p;
}

// Runs average_gradients, turning an Error (the ranks made different collectives) into a message.
std::string average_or_error(const std::vector<Tensor>& parameters)
{
    try {
        average_gradients(parameters);
        return "";
    } catch (const Error& error) {
        return error.what();
    }
}

// One AMP iteration of a 2-parameter model with ZeRO-2 sharding: the overflow lands in parameter
// 0's gradient, which only its owner keeps (as an f16 layer whose gradient overflowed would).
// Returns {stepped, scale after update} of this rank.
std::pair<bool, double> sharded_iteration_with_overflow(amp::GradScaler& scaler)
{
    std::vector<Tensor> p = {parameter_with_grad({1, 2, 3, 4}, {}), parameter_with_grad({5}, {})};
    dist::ZeroRedundancyOptimizer zero(p, [](std::vector<Tensor> shard) {
        return std::make_unique<optim::SGD>(shard, optim::SGDOptions{.lr = 0.1});
    });
    scaler.scale(add(sum(p[0]), sum(p[1]))).backward();
    zero.reduce_gradients();
    if (zero.owner(0) == rank()) p[0].grad().set({0}, INFINITY);
    const bool stepped = scaler.step(zero.local_optimizer());
    zero.sync_parameters();
    scaler.update();
    return {stepped, scaler.get_scale()};
}

// {smallest, largest} of a number over the ranks.
std::vector<double> range_over_ranks(double mine)
{
    const Tensor lo = full({1}, -mine, f64), hi = full({1}, mine, f64);
    dist::all_reduce(lo, dist::ReduceOp::MAX);
    dist::all_reduce(hi, dist::ReduceOp::MAX);
    return {-lo.item(), hi.item()};
}

}  // namespace

TEST_SUITE("lab21")
{
    TEST_CASE("lab 21.1: average_gradients gives every rank the average gradient")
    {
        REQUIRE(world() == 2);
        // Rank 0 holds gradient (1, 10), rank 1 (3, 30): the average is (2, 20) on both.
        const Tensor w = parameter_with_grad({0, 0}, rank() == 0 ? std::vector<double>{1, 10} : std::vector<double>{3, 30});
        REQUIRE(average_or_error({w}).empty());
        CAPTURE(w.grad().to_vector());
        LAB_CHECK("gradients (1, 10) on rank 0 and (3, 30) on rank 1 average to (2, 20) on both ranks; (4, 40) is their sum "
                  "(mistake: summing without dividing by the world size)",
                  w.grad().to_vector() == std::vector<double>{2, 20});

        // A parameter only rank 0's loss used: rank 1 has no gradient for it, and must still send one.
        const Tensor used_by_rank_0 = parameter_with_grad({0, 0, 0}, rank() == 0 ? std::vector<double>{6, 6, 6} : std::vector<double>{});
        const Tensor everyone = parameter_with_grad({0}, {rank() == 0 ? 1.0 : 5.0});
        const std::string problem = average_or_error({used_by_rank_0, everyone});
        CAPTURE(problem);
        LAB_CHECK("rank 1 has no gradient for a parameter its loss did not use: it must take part with zeros, or the ranks' "
                  "collectives differ (mistake: skipping a parameter this rank has no gradient for)",
                  problem.empty());
        if (problem.empty()) {
            LAB_CHECK("(6, 6, 6) on rank 0 and no gradient (zeros) on rank 1 average to (3, 3, 3)",
                      used_by_rank_0.grad().to_vector() == std::vector<double>{3, 3, 3});
            LAB_CHECK("1 and 5 average to 3", everyone.grad().to_vector() == std::vector<double>{3});
        }

        // Two ranks on half batches equal one process on the whole batch.
        Generator generator(7);
        const Tensor x = randn({8, 3}, f32, generator), y = randn({8, 1}, f32, generator);
        const Tensor w0 = randn({3, 1}, f32, generator);
        const Tensor mine = w0.clone().requires_grad_(), whole = w0.clone().requires_grad_();
        mse_loss(matmul(x.slice(0, 4 * rank(), 4 * rank() + 4).contiguous(), mine), y.slice(0, 4 * rank(), 4 * rank() + 4).contiguous())
            .backward();
        average_gradients({mine});
        mse_loss(matmul(x, whole), y).backward();
        LAB_CHECK("the average of the ranks' half-batch mean-loss gradients is the whole batch's gradient",
                  mine.grad().to_vector() == lesson::approx(whole.grad().to_vector(), 1e-5));
    }

    TEST_CASE("lab 21.2: found_inf_on_any_rank agrees on an overflow any rank found")
    {
        REQUIRE(world() == 2);
        LAB_CHECK("only rank 1 found an inf: every rank must say true (mistake: trusting this rank's own check)",
                  found_inf_on_any_rank(rank() == 1));
        LAB_CHECK("only rank 0 found an inf: every rank must say true (mistake: trusting this rank's own check)",
                  found_inf_on_any_rank(rank() == 0));
        const bool one_rank_found = found_inf_on_any_rank(rank() == 1);
        LAB_CHECK("one rank's inf is enough to skip; requiring every rank to find one misses it (mistake: agreeing only when "
                  "every rank found an inf)",
                  one_rank_found);
        LAB_CHECK("both found one: true", found_inf_on_any_rank(true));
        LAB_CHECK("none found one: false on every rank", !found_inf_on_any_rank(false));

        // The scaler built on it, against the desync: an overflow in one rank's gradient shard.
        AgreeingGradScaler scaler("cpu");
        const auto [stepped, scale] = sharded_iteration_with_overflow(scaler);
        const std::vector<double> steps = range_over_ranks(stepped ? 1.0 : 0.0), scales = range_over_ranks(scale);
        LAB_CHECK("an overflow in one rank's gradient shard: every rank skips the step (range of 'stepped' over the ranks, "
                  "{min, max}, should be {0, 0}; {0, 1} is the desync)",
                  steps == std::vector<double>{0, 0});
        LAB_CHECK("and every rank halves its scale to 32768: the scales stay equal", scales == std::vector<double>{32768, 32768});
    }

    TEST_CASE("lab 21.3: average_in_bf16 sends and sums in bf16")
    {
        REQUIRE(world() == 2);
        const Tensor grad = tensor({rank() == 0 ? 2.0 : std::ldexp(1.0, -8), 3.0, rank() == 0 ? -1.0 : 1.0});
        const Tensor average = average_in_bf16(grad);
        CAPTURE(average.to_vector());
        LAB_CHECK("the average comes back as f32, the gradient's dtype (mistake: returning the bf16 sum)", average.dtype() == f32);
        LAB_CHECK("2 and 2^-8 halve to 1 and 2^-9, whose bf16 sum rounds to 1: rank 1's share is lost; 1.00195 is the f32 sum "
                  "(mistake: summing in f32, no compression)",
                  average.to_vector() == std::vector<double>{1.0, 3.0, 0.0});
        // Against the library's bf16_compress_hook (all_reduce_gradients with dtype bf16).
        Generator generator(100 + std::uint64_t(rank()));
        const Tensor g = randn({64}, f32, generator);
        const Tensor p = zeros({64}).requires_grad_();
        p.set_grad(g.clone());
        dist::all_reduce_gradients({p}, {.dtype = bf16});
        LAB_CHECK("64 random gradients: the same bits as distributed::all_reduce_gradients with dtype bf16",
                  average_in_bf16(g).to_vector() == p.grad().to_vector());
    }
}
