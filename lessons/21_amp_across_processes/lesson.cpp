// Lesson 21: AMP across processes. Two ranks (two processes under mpiexec, each with its own
// memory) train one model: each computes the gradient of its half of every batch, and the ranks
// average their gradients before stepping. Mixed precision adds three questions there, each
// answered by a measurement: do the ranks agree on whether a step overflowed (the sharded scaler's
// desync), what does averaging the gradients in bf16 lose, and how much memory does sharding the
// optimizer state save per rank. Every rank runs this file; rank 0 prints (two_processes.h).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lessons/21_amp_across_processes/about.h"
#include "lessons/support/lesson.h"
#include "lessons/support/models.h"
#include "tinyamp/distributed/collectives.h"
#include "tinyamp/distributed/distributed_data_parallel.h"
#include "tinyamp/distributed/fully_sharded.h"
#include "tinyamp/distributed/gradients.h"
#include "tinyamp/distributed/process_group.h"
#include "tinyamp/distributed/sharded.h"

using namespace tinyamp;
namespace dist = tinyamp::distributed;

namespace {

constexpr std::int64_t kGlobalBatch = 64;
constexpr std::int64_t kTrainRows = 1536;  // 24 global batches; the other 261 digits are the test set

struct Digits {
    Tensor train_x, train_y, test_x, test_y;
};

Digits load_digits()
{
    const data::Dataset d = data::load_digits(data::data_path("digits.csv.gz"));
    const Tensor x = div(d.features, 16.0);
    const std::int64_t n = x.shape()[0];
    return {x.slice(0, 0, kTrainRows).contiguous(), d.labels.slice(0, 0, kTrainRows).contiguous(),
            x.slice(0, kTrainRows, n).contiguous(), d.labels.slice(0, kTrainRows, n).contiguous()};
}

// Rows [begin, begin + count) of `t`.
Tensor rows(const Tensor& t, std::int64_t begin, std::int64_t count) { return t.slice(0, begin, begin + count).contiguous(); }

// Global batch `step`: this rank's share of it (its rows, after the lower ranks'), or all of it.
struct Share {
    Tensor x, y;
};
Share batch(const Digits& d, int step, bool whole)
{
    const std::int64_t start = (std::int64_t(step) * kGlobalBatch) % kTrainRows;
    const std::int64_t size = whole ? kGlobalBatch : kGlobalBatch / dist::get_world_size();
    const std::int64_t offset = whole ? 0 : size * dist::get_rank();
    return {rows(d.train_x, start + offset, size), rows(d.train_y, start + offset, size)};
}

// The largest |a - b| over every element, relative to the largest |b|.
double relative_distance(const std::vector<Tensor>& a, const std::vector<Tensor>& b)
{
    double worst = 0, scale = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const std::vector<double> x = a[i].to_vector(), y = b[i].to_vector();
        for (std::size_t j = 0; j < x.size(); ++j) {
            worst = std::max(worst, std::fabs(x[j] - y[j]));
            scale = std::max(scale, std::fabs(y[j]));
        }
    }
    return worst / scale;
}

std::string pct(double share) { return lesson::fmt(100 * share) + " %"; }

double accuracy(const std::function<Tensor(const Tensor&)>& model, const Digits& d)
{
    NoGradGuard no_grad;
    const Tensor predicted = argmax(model(d.test_x), 1);
    return mean(eq(predicted, d.test_y).to(f32)).item();
}

// ---------------------------------------------------------------------------------------------
// Step 1: two ranks train as one process.

std::shared_ptr<nn::Module> digits_mlp()
{
    manual_seed(0);
    return std::make_shared<nn::Sequential>(std::vector<std::shared_ptr<nn::Module>>{
        std::make_shared<nn::Linear>(64, 64), std::make_shared<nn::ReLU>(), std::make_shared<nn::Linear>(64, 10)});
}

struct Trained {
    std::vector<Tensor> params;
    std::vector<Tensor> grads;   // the last step's gradients (averaged over the ranks)
    std::vector<double> losses;  // the global batch's loss at each step (the ranks' mean)
    double accuracy = 0;
};

// `steps` steps of SGD on the digits MLP under bf16 autocast (`amp`) or in f32: wrapped in
// DistributedDataParallel, each rank on its share of every batch; or alone, on whole batches.
Trained train_digits(int steps, bool data_parallel, bool amp, const Digits& d, std::optional<DType> gradient_dtype = std::nullopt)
{
    std::shared_ptr<nn::Module> model = digits_mlp();
    if (data_parallel) model = std::make_shared<dist::DistributedDataParallel>(model, dist::DistributedDataParallelOptions{gradient_dtype});
    optim::SGD optimizer(model->parameters(), {.lr = 0.1, .momentum = 0.9});
    Trained t;
    for (int step = 0; step < steps; ++step) {
        const Share b = batch(d, step, !data_parallel);
        optimizer.zero_grad();
        Tensor loss;
        {
            amp::autocast region("cpu", {.dtype = bf16, .enabled = amp});
            loss = cross_entropy(model->forward(b.x), b.y);
        }
        loss.backward();  // DDP averages the gradients during it, bucket by bucket
        optimizer.step();
        const Tensor global = full({1}, loss.item(), f64);
        if (data_parallel) dist::all_reduce(global, dist::ReduceOp::AVG);
        t.losses.push_back(global.item());
    }
    t.params = model->parameters();
    for (const Tensor& p : t.params) t.grads.push_back(p.grad().clone());
    t.accuracy = accuracy([&](const Tensor& x) { return model->forward(x); }, d);
    return t;
}

// Whether every rank holds rank 0's bits in every tensor (rank 0's broadcast and compared, then
// the ranks agree with a MAX): known on every rank.
bool replicas_identical(const std::vector<Tensor>& tensors)
{
    double differs = 0;
    for (const Tensor& t : tensors) {
        const Tensor rank0 = t.detach().clone();
        dist::broadcast(rank0, 0);
        if (rank0.to_vector() != t.to_vector()) differs = 1;
    }
    const Tensor any = full({1}, differs, f64);
    dist::all_reduce(any, dist::ReduceOp::MAX);
    return any.item() == 0;
}

void step_data_parallel(lesson::Lesson& L, const Digits& d)
{
    L.step("Two ranks train as one process with the whole batch");
    L.say("Each rank is a process with its own copy of the model. DistributedDataParallel broadcasts rank 0's\n"
          "weights, so the copies start equal; each rank runs forward and backward on its half of every batch\n"
          "of 64 digits, and during backward the ranks average their gradients (an all_reduce, bucket by bucket).\n"
          "The mean of two half-batch means is the whole batch's mean: every rank takes the step one process\n"
          "would take with all 64 digits, and the copies stay equal without ever being compared.");
    L.expect("After 120 SGD steps in f32, the two ranks' model is the one-process model up to the order of f32\n"
             "sums (1e-5 of the largest weight or less), and both ranks hold the same bits. Under bf16 autocast it\n"
             "is not: each rank rounds its half-batch gradient to bf16 (the weight gradients are bf16 matmuls) before\n"
             "the average, where one process rounds the whole batch's once. The first gradients differ by a few bf16\n"
             "roundings; training then amplifies the difference, as it does any; the accuracy is the same.");
    constexpr int kSteps = 120;
    const Trained f32_ranks = train_digits(kSteps, true, false, d), f32_alone = train_digits(kSteps, false, false, d);
    const Trained bf16_ranks = train_digits(kSteps, true, true, d), bf16_alone = train_digits(kSteps, false, true, d);
    const double f32_gap = relative_distance(f32_ranks.params, f32_alone.params);
    const double bf16_gap = relative_distance(bf16_ranks.params, bf16_alone.params);
    const Trained first_ranks = train_digits(1, true, true, d), first_alone = train_digits(1, false, true, d);
    const double bf16_first_step = relative_distance(first_ranks.grads, first_alone.grads);
    const double bf16_first_weights = relative_distance(first_ranks.params, first_alone.params);
    const double precisions = relative_distance(bf16_alone.params, f32_alone.params);
    L.say("f32: 2 ranks vs 1 process after " + std::to_string(kSteps) + " steps, largest difference " + lesson::fmt(f32_gap) +
          " of the largest weight; test accuracy " + pct(f32_ranks.accuracy) + " vs " + pct(f32_alone.accuracy) +
          "\nbf16 autocast: the first gradients " + lesson::fmt(bf16_first_step) + " of the largest apart; the weights " + lesson::fmt(bf16_gap) + " after " +
          std::to_string(kSteps) + "; test accuracy " + pct(bf16_ranks.accuracy) + " vs " + pct(bf16_alone.accuracy) +
          "\n(for scale: one process in bf16 vs one in f32, " + lesson::fmt(precisions) + " apart)");
    L.check(f32_gap <= 1e-5, "in f32 the 2-rank model equals the one-process model within 1e-5 (" + lesson::fmt(f32_gap) + ")");
    L.check(replicas_identical(f32_ranks.params) && replicas_identical(bf16_ranks.params),
            "both ranks hold the same bits, in f32 and in bf16 (every rank took the same averaged step)");
    L.check(bf16_first_step > 10 * f32_gap && bf16_first_step < std::ldexp(1.0, -7),
            "under bf16 autocast the first averaged gradient already differs (" + lesson::fmt(bf16_first_step) +
                " of its largest element), by bf16 roundings: less than 2^-7");
    L.check(bf16_gap > 100 * bf16_first_weights, "and training amplifies it: the weights " + lesson::fmt(bf16_first_weights) +
                                                    " apart after one step, " + lesson::fmt(bf16_gap) + " after " + std::to_string(kSteps));
    L.check(std::fabs(bf16_ranks.accuracy - bf16_alone.accuracy) <= 0.02 && std::fabs(f32_ranks.accuracy - f32_alone.accuracy) <= 0.02,
            "2 ranks and 1 process reach the same test accuracy within 2 points, in f32 and in bf16");

    lesson::LinePlot plot{"Digits MLP, bf16 autocast: loss of each global batch of 64", "step", "loss", false, {}, {}, {}};
    std::vector<double> steps;
    for (std::size_t i = 0; i < bf16_ranks.losses.size(); ++i) steps.push_back(double(i));
    plot.series.push_back({"2 ranks, 32 digits each", steps, bf16_ranks.losses, "", false});
    plot.series.push_back({"1 process, 64 digits", steps, bf16_alone.losses, "", false});
    L.write_plot("loss_two_ranks_vs_one", plot, "Two ranks on half batches, one process on whole ones: the same descent");
    L.key_result("2 ranks = 1 process with the global batch: " + lesson::fmt(f32_gap) + " apart in f32; under bf16 autocast " +
                 lesson::fmt(bf16_gap) + " apart after " + std::to_string(kSteps) + " steps (each rank rounds its own gradient), same accuracy");
}

// ---------------------------------------------------------------------------------------------
// Step 2: the sharded scaler's desync.

// Every rank's `value`, rank 0's first (an all_gather).
std::vector<double> from_every_rank(double value)
{
    const Tensor all = zeros({dist::get_world_size()}, f64);
    dist::all_gather_into_tensor(all, full({1}, value, f64));
    return all.to_vector();
}

// How an f16 run with a GradScaler splits its work between the ranks.
enum class Sharding {
    replicated,      // every rank averages and checks every gradient, and steps every parameter
    zero_plain,      // ZeRO-2: each rank keeps and checks its own shard's gradients; amp::GradScaler
    zero_agreeing,   // the same with distributed::ShardedGradScaler (found-inf agreed by a MAX)
};

struct ScaledRun {
    std::vector<Tensor> params;
    std::vector<std::vector<double>> scales;   // per step, every rank's scale after update()
    std::vector<std::vector<double>> stepped;  // per step, whether each rank stepped (1) or skipped (0)
    int first_disagreement = -1;               // the first step where the ranks' decisions differed
    double accuracy = 0;                       // on the test digits
};

constexpr int kScaledSteps = 60;

// kScaledSteps steps of the digits MLP 64-64-10 under f16 autocast with a loss scale that grows
// every 5 clean steps (so it keeps finding the overflow edge), SGD with momentum.
ScaledRun train_f16_scaled(Sharding how, const Digits& d)
{
    Generator generator(3);
    const lesson::Mlp net({64, 64, 10}, generator);
    const std::vector<Tensor>& p = net.params();
    const auto sgd = [](std::vector<Tensor> shard) -> std::unique_ptr<optim::Optimizer> {
        return std::make_unique<optim::SGD>(shard, optim::SGDOptions{.lr = 0.1, .momentum = 0.9});
    };
    const amp::GradScalerOptions options{.growth_interval = 5};
    std::unique_ptr<amp::GradScaler> scaler = how == Sharding::zero_agreeing ? std::make_unique<dist::ShardedGradScaler>("cpu", options)
                                                                             : std::make_unique<amp::GradScaler>("cpu", options);
    std::unique_ptr<optim::Optimizer> everything;
    std::unique_ptr<dist::ZeroRedundancyOptimizer> zero;
    if (how == Sharding::replicated)
        everything = sgd(p);
    else
        zero = std::make_unique<dist::ZeroRedundancyOptimizer>(p, sgd);
    ScaledRun run;
    for (int step = 0; step < kScaledSteps; ++step) {
        const Share b = batch(d, step, false);
        for (const Tensor& t : p) t.set_grad(Tensor());
        Tensor loss;
        {
            amp::autocast region("cpu", {.dtype = f16});
            loss = cross_entropy(net(b.x), b.y);
        }
        scaler->scale(loss).backward();
        bool stepped = false;
        if (everything) {
            dist::all_reduce_gradients(p);  // every rank then checks every averaged gradient
            stepped = scaler->step(*everything);
        } else {
            zero->reduce_gradients();  // every rank keeps (and its scaler checks) its own shard only
            stepped = scaler->step(zero->local_optimizer());
            zero->sync_parameters();
        }
        scaler->update();
        run.scales.push_back(from_every_rank(scaler->get_scale()));
        run.stepped.push_back(from_every_rank(stepped ? 1 : 0));
        if (run.first_disagreement < 0 && run.stepped.back()[0] != run.stepped.back()[1]) run.first_disagreement = step;
    }
    run.params = p;
    run.accuracy = accuracy([&](const Tensor& x) { return net(x); }, d);
    return run;
}

void step_desync(lesson::Lesson& L, const Digits& d)
{
    L.step("The sharded scaler's desync: one rank skips, the other steps");
    L.say("ZeRO (PyTorch's ZeroRedundancyOptimizer, and FSDP) shards the optimizer: each rank keeps the averaged\n"
          "gradients and the optimizer state of its own parameters only, steps those, and sends them to the\n"
          "others. A GradScaler then checks for infs only in the gradients its rank kept. Here rank 0 owns w1\n"
          "(64x64), rank 1 owns w2, b1 and b2. The scale grows every 5 clean steps, so it keeps reaching the edge\n"
          "where an f16 gradient overflows; when the overflow lands in one rank's shard only, that rank skips its\n"
          "step and halves its scale, and the other steps and keeps its own.");
    L.expect("With amp::GradScaler the ranks soon disagree on a step, and from then on hold different scales: each\n"
             "rank multiplies its loss by its own scale, the average mixes the two, and each owner divides by its own,\n"
             "so the updates are wrong and the model drifts from the replicated run. distributed::ShardedGradScaler\n"
             "agrees on found-inf (a MAX over the ranks): the same decisions at every step, the same scale, and the\n"
             "same model as the replicated run, bit for bit.");
    const ScaledRun replicated = train_f16_scaled(Sharding::replicated, d);
    const ScaledRun plain = train_f16_scaled(Sharding::zero_plain, d);
    const ScaledRun agreeing = train_f16_scaled(Sharding::zero_agreeing, d);
    int plain_different_scales = 0, agreeing_different_scales = 0, replicated_skips = 0;
    for (int i = 0; i < kScaledSteps; ++i) {
        plain_different_scales += plain.scales[i][0] != plain.scales[i][1];
        agreeing_different_scales += agreeing.scales[i][0] != agreeing.scales[i][1];
        replicated_skips += replicated.stepped[i][0] == 0;
    }
    const double drift = relative_distance(plain.params, replicated.params);
    const double agreeing_gap = relative_distance(agreeing.params, replicated.params);
    const int first = plain.first_disagreement;
    L.say("replicated: " + std::to_string(replicated_skips) + " skipped steps of " + std::to_string(kScaledSteps) + ", on both ranks alike");
    if (first >= 0)
        L.say("ZeRO + GradScaler: at step " + std::to_string(first) + " rank 0 " + (plain.stepped[first][0] ? "stepped" : "skipped") +
              " and rank 1 " + (plain.stepped[first][1] ? "stepped" : "skipped") + "; scales then " + lesson::fmt(plain.scales[first][0]) +
              " and " + lesson::fmt(plain.scales[first][1]) + "; different scales at " + std::to_string(plain_different_scales) + " of " +
              std::to_string(kScaledSteps) + " steps; the model " + lesson::fmt(drift) + " of its largest weight away from the replicated run's; test accuracy " +
              pct(plain.accuracy) + " (replicated: " + pct(replicated.accuracy) + ")");
    L.say("ZeRO + ShardedGradScaler: different scales at " + std::to_string(agreeing_different_scales) + " steps; the model " +
          lesson::fmt(agreeing_gap) + " away from the replicated run's");
    L.check(replicated_skips > 0, "the scale reached the overflow edge: the replicated run skipped " + std::to_string(replicated_skips) + " steps");
    L.check(first >= 0, "with amp::GradScaler on sharded gradients, the ranks disagreed on a step (one skipped, one stepped)");
    L.check(plain_different_scales > 0, "and then held different loss scales");
    L.check(drift > 1e-3, "and the model drifted from the replicated run's (" + lesson::fmt(drift) + ")");
    L.check(agreeing_different_scales == 0, "with ShardedGradScaler the ranks held the same scale at every step");
    L.check(agreeing_gap == 0, "and trained exactly the replicated run's model, bit for bit");

    lesson::LinePlot plot{"Loss scale of each rank, f16, ZeRO-2 sharded gradients", "step", "loss scale", true, {}, {}, {}};
    std::vector<double> steps, plain0, plain1, agreed;
    for (int i = 0; i < kScaledSteps; ++i) {
        steps.push_back(i);
        plain0.push_back(plain.scales[i][0]);
        plain1.push_back(plain.scales[i][1]);
        agreed.push_back(agreeing.scales[i][0]);
    }
    plot.series.push_back({"GradScaler, rank 0", steps, plain0, "", false});
    plot.series.push_back({"GradScaler, rank 1", steps, plain1, "", false});
    plot.series.push_back({"ShardedGradScaler, both ranks", steps, agreed, "", false});
    L.write_plot("scale_per_rank", plot, "A plain GradScaler on sharded gradients: the ranks' scales part; ShardedGradScaler keeps them together");
    L.key_result("sharded gradients + GradScaler: ranks disagree at step " + std::to_string(first) + ", scales differ at " +
                 std::to_string(plain_different_scales) + " steps, model drifts " + lesson::fmt(drift) + "; ShardedGradScaler: 0, bit-identical");
}

// ---------------------------------------------------------------------------------------------
// Step 3: what a bf16 all-reduce loses.

// The f32 gradients of the digits MLP 64-64-10 on `x`, `y` (the same weights on every rank), flat.
Tensor flat_gradient(const Tensor& x, const Tensor& y)
{
    Generator generator(5);
    const lesson::Mlp net({64, 64, 10}, generator);
    cross_entropy(net(x), y).backward();
    std::vector<Tensor> flat;
    for (const Tensor& t : net.params()) flat.push_back(t.grad().reshape({-1}));
    return cat(flat, 0);
}

// The shares of elements whose sum, taken in bf16 one share at a time (as a ring does), lost a
// share entirely (a nonzero share that left the running sum unchanged), and the median relative
// error of that sum against the f32 sum of the same shares.
struct Bf16SumLoss {
    double lost_share = 0;      // elements where at least one rank's nonzero share vanished
    double median_error = 0;    // |bf16 sum - f32 sum| / |f32 sum|, median over the nonzero sums
};
Bf16SumLoss sum_shares_in_bf16(const std::vector<Tensor>& shares)
{
    const std::int64_t n = shares[0].numel();
    std::vector<double> exact(std::size_t(n), 0.0), rounded = shares[0].to(bf16).to_vector();
    std::vector<bool> lost(std::size_t(n), false);
    for (std::size_t k = 0; k < shares.size(); ++k) {
        const std::vector<double> share = shares[k].to(bf16).to_vector();  // what each rank sends
        const std::vector<double> before = rounded;
        if (k > 0) rounded = add(tensor(before, {n}, bf16), tensor(share, {n}, bf16)).to_vector();  // an f32 add, rounded to bf16
        for (std::int64_t i = 0; i < n; ++i) {
            exact[std::size_t(i)] += share[std::size_t(i)];
            if (k > 0 && share[std::size_t(i)] != 0 && rounded[std::size_t(i)] == before[std::size_t(i)]) lost[std::size_t(i)] = true;
        }
    }
    std::vector<double> errors;
    std::int64_t lost_count = 0;
    for (std::int64_t i = 0; i < n; ++i) {
        lost_count += lost[std::size_t(i)];
        if (exact[std::size_t(i)] != 0) errors.push_back(std::fabs(rounded[std::size_t(i)] - exact[std::size_t(i)]) / std::fabs(exact[std::size_t(i)]));
    }
    std::nth_element(errors.begin(), errors.begin() + std::ptrdiff_t(errors.size() / 2), errors.end());
    return {double(lost_count) / double(n), errors[errors.size() / 2]};
}

void step_bf16_all_reduce(lesson::Lesson& L, const Digits& d)
{
    L.step("Averaging the gradients in bf16: what it loses");
    L.say("PyTorch's bf16_compress_hook sends each rank's gradient, divided by the number of ranks, in bf16: half the\n"
          "bytes of f32. The sum is taken in bf16 too: NCCL's ring adds one rank's share at a time and rounds each\n"
          "partial sum to bf16, 8 bits of precision. A share smaller than 2^-9 of the running sum then vanishes.");
    L.expect("With 2 ranks of 32 digits a share is rarely that small: some elements lose one, and the average\n"
             "is off by a few tenths of a percent (bf16's rounding, 2^-9 = 0.2 % at most per rounding). With 8\n"
             "ranks of 8 digits there are 7 roundings and smaller shares: more is lost. Training barely notices.");
    // 2 ranks, for real: each rank's share of batch 0, sent in bf16 through the library's hook.
    const Share mine = batch(d, 0, false);
    const Tensor my_share = div(flat_gradient(mine.x, mine.y), 2.0);
    const Tensor every_share = zeros({2, my_share.numel()});
    dist::all_gather_into_tensor(every_share, my_share);
    const Bf16SumLoss two = sum_shares_in_bf16({every_share.select(0, 0), every_share.select(0, 1)});
    // 8 ranks of 8 digits each, as a ring would sum them (computed here, the same on every rank).
    const Share whole = batch(d, 0, true);
    std::vector<Tensor> eight;
    for (std::int64_t r = 0; r < 8; ++r) eight.push_back(div(flat_gradient(rows(whole.x, 8 * r, 8), rows(whole.y, 8 * r, 8)), 8.0));
    const Bf16SumLoss many = sum_shares_in_bf16(eight);
    L.say("2 ranks: a share lost in " + pct(two.lost_share) + " of the elements, median error " + pct(two.median_error) +
          "\n8 ranks: " + pct(many.lost_share) + ", median error " + pct(many.median_error));
    L.check(two.median_error > 0 && two.median_error < std::ldexp(1.0, -8), "2 ranks: the bf16 average is off by less than 2^-8 (" +
                                                                                pct(two.median_error) + ", the median)");
    L.check(many.lost_share > two.lost_share && many.median_error > two.median_error,
            "8 ranks lose more shares and more precision than 2");

    // The training run of step 1, its gradients averaged in f32 and in bf16.
    const Trained f32_sent = train_digits(120, true, true, d), bf16_sent = train_digits(120, true, true, d, bf16);
    L.say("bf16 autocast, 120 steps: test accuracy " + pct(f32_sent.accuracy) + " with an f32 all-reduce, " + pct(bf16_sent.accuracy) +
          " with a bf16 one; last loss " + lesson::fmt(f32_sent.losses.back()) + " vs " + lesson::fmt(bf16_sent.losses.back()));
    L.check(std::fabs(f32_sent.accuracy - bf16_sent.accuracy) <= 0.02, "the bf16 all-reduce trains to the same accuracy within 2 points");
    L.say("When it matters: with many ranks (every partial sum rounds again), with gradients whose ranks differ in\n"
          "size by more than 2^8 (the small shares vanish), and where a small update must add up over many steps.\n"
          "An f32 all-reduce (DDP's default) or an f32 reduce_dtype (FSDP's MixedPrecision) avoids it for twice the bytes.");
    L.key_result("bf16 all-reduce: a share lost in " + pct(two.lost_share) + " of the elements with 2 ranks, " + pct(many.lost_share) +
                 " with 8; median error " + pct(two.median_error) + " / " + pct(many.median_error) + "; same accuracy");
}

// ---------------------------------------------------------------------------------------------
// Step 4: memory per rank.

std::int64_t live_bytes() { return memory_stats().total.live_bytes; }

// The bytes of the f32 gradients this rank holds for `tensors`.
std::int64_t gradient_bytes(const std::vector<Tensor>& tensors)
{
    std::int64_t total = 0;
    for (const Tensor& t : tensors)
        if (t.grad().defined()) total += t.grad().numel() * 4;
    return total;
}

struct RankMemory {
    double grads = 0, state = 0;  // bytes this rank holds after the step: gradients kept, optimizer state
    double state_counted = 0;     // the optimizer's state tensors, counted by optimizer_state_bytes
};

// One AdamW step of the digits MLP 64-256-256-10 (85,002 parameters), replicated or ZeRO-2.
RankMemory adamw_step_memory(bool sharded, const Digits& d)
{
    Generator generator(9);
    const lesson::Mlp net({64, 256, 256, 10}, generator);
    const std::vector<Tensor>& p = net.params();
    const auto adamw = [](std::vector<Tensor> shard) -> std::unique_ptr<optim::Optimizer> {
        return std::make_unique<optim::AdamW>(shard, optim::AdamWOptions{});
    };
    const Share b = batch(d, 0, false);
    cross_entropy(net(b.x), b.y).backward();
    RankMemory m;
    if (sharded) {
        dist::ZeroRedundancyOptimizer zero(p, adamw);
        zero.reduce_gradients();  // keeps only this rank's shard of the gradients
        const std::int64_t before = live_bytes();
        zero.local_optimizer().step();
        m.state = double(live_bytes() - before);
        m.grads = double(gradient_bytes(p));
        m.state_counted = double(zero.optimizer_state_bytes());
    } else {
        std::unique_ptr<optim::Optimizer> everything = adamw(p);
        dist::all_reduce_gradients(p);
        const std::int64_t before = live_bytes();
        everything->step();
        m.state = double(live_bytes() - before);
        m.grads = double(gradient_bytes(p));
        m.state_counted = double(dist::optimizer_state_bytes(*everything));
    }
    return m;
}

// The optimizer state one AdamW step of the same MLP creates on this rank under
// FullyShardedDataParallel (parameters gathered in bf16, gradients reduce-scattered in f32): the
// flat parameter is split evenly, whatever the tensors' sizes.
double fsdp_adamw_state(const Digits& d)
{
    manual_seed(9);
    const auto mlp = std::make_shared<nn::Sequential>(std::vector<std::shared_ptr<nn::Module>>{
        std::make_shared<nn::Linear>(64, 256), std::make_shared<nn::ReLU>(), std::make_shared<nn::Linear>(256, 256),
        std::make_shared<nn::ReLU>(), std::make_shared<nn::Linear>(256, 10)});
    dist::FullyShardedDataParallel fsdp(mlp, {.param_dtype = bf16, .reduce_dtype = f32});
    optim::AdamW optimizer(fsdp.parameters(), {});
    const Share b = batch(d, 0, false);
    cross_entropy(fsdp.forward(b.x).to(f32), b.y).backward();
    const std::int64_t before = live_bytes();
    optimizer.step();
    return double(live_bytes() - before);
}

std::string kib(double bytes) { return lesson::fmt(bytes / 1024) + " KiB"; }

void step_memory(lesson::Lesson& L, const Digits& d)
{
    L.step("Memory per rank: replicated vs sharded optimizer state");
    L.say("AdamW keeps two f32 moments per parameter: twice the weights' bytes, on every rank of a replicated run.\n"
          "ZeRO keeps each parameter's moments (and, ZeRO-2, its averaged gradient) on its owner only. Measured\n"
          "with memory_stats(): the bytes alive after the first step minus before it, on each rank, for the\n"
          "digits MLP 64-256-256-10 (85,002 parameters, 332 KiB in f32).");
    L.expect("Replicated: 664 KiB of moments on each rank. ZeRO: the two ranks' moments add up to the same 664 KiB,\n"
             "but not half each: parameters go to ranks whole, and w2 (256x256) alone is 77 % of them. FSDP flattens\n"
             "all parameters into one vector and gives each rank half of it: 332 KiB of moments each.");
    const RankMemory replicated = adamw_step_memory(false, d), sharded = adamw_step_memory(true, d);
    const std::vector<double> rep_state = from_every_rank(replicated.state), zero_state = from_every_rank(sharded.state);
    const std::vector<double> zero_grads = from_every_rank(sharded.grads), zero_counted = from_every_rank(sharded.state_counted);
    const double params_bytes = 85002.0 * 4;
    L.say("replicated: optimizer state " + kib(rep_state[0]) + " and " + kib(rep_state[1]) + ", gradients " + kib(replicated.grads) +
          " on each rank\nZeRO-2: optimizer state " + kib(zero_state[0]) + " on rank 0, " + kib(zero_state[1]) + " on rank 1; gradients " +
          kib(zero_grads[0]) + " and " + kib(zero_grads[1]));
    const double step_counts = 6 * 4;  // AdamW counts the steps of each of the 6 tensors in an f32 scalar, as PyTorch's `step`
    L.check(rep_state[0] == 2 * params_bytes + step_counts && rep_state[1] == rep_state[0],
            "replicated AdamW holds 2 x 332 KiB of moments (and 6 step counts) on every rank");
    L.check(zero_state[0] + zero_state[1] == rep_state[0], "ZeRO's two shards of state add up to one replicated state");
    L.check(std::max(zero_state[0], zero_state[1]) < rep_state[0], "and each rank holds less than a replicated rank");
    L.check(std::max(zero_state[0], zero_state[1]) == 2 * 65536.0 * 4 + 4,
            "the larger shard is w2's moments alone (77 % of the state): whole tensors split no finer than the largest one");
    L.check(zero_counted == zero_state, "ZeroRedundancyOptimizer::optimizer_state_bytes() counts what memory_stats() saw");
    L.check(zero_grads[0] + zero_grads[1] == params_bytes, "ZeRO-2: each rank keeps only its own shard's gradients, together one copy");
    const std::vector<double> fsdp_state = from_every_rank(fsdp_adamw_state(d));
    L.say("FSDP (one flat parameter, gathered in bf16 for each forward): optimizer state " + kib(fsdp_state[0]) + " on rank 0, " +
          kib(fsdp_state[1]) + " on rank 1");
    L.check(fsdp_state[0] == fsdp_state[1] && fsdp_state[0] == params_bytes + 4,
            "FullyShardedDataParallel splits the flattened parameters evenly: half the moments on each rank (and one step count)");
    L.key_result("AdamW state per rank: replicated " + kib(rep_state[0]) + ", ZeRO " + kib(zero_state[0]) + " / " + kib(zero_state[1]) +
                 " (whole tensors: the largest decides), FSDP " + kib(fsdp_state[0]) + " each");
}

void run(lesson::Lesson& L)
{
    if (dist::get_world_size() != 2) L.skip("this lesson needs exactly 2 ranks; it has " + std::to_string(dist::get_world_size()));
    L.say("This lesson runs on 2 processes (ranks 0 and 1, started by mpiexec: the line above shows how). They\n"
          "share nothing but messages; every number below that concerns both was sent between them.");
    const Digits d = load_digits();
    step_data_parallel(L, d);
    step_desync(L, d);
    step_bf16_all_reduce(L, d);
    step_memory(L, d);
}

const lesson::Registration registered{{lesson21::kNumber, lesson21::kSlug, lesson21::kTitle, lesson21::kTeaches, run}};

}  // namespace
