// Lesson 8: the cast cache. Inside a region an f32 weight is cast to bf16 once and the cast is
// reused by every op that needs it; only f32 leaves that require grad (weights) are cached; the
// cache empties when the outermost region ends. Two traps follow from that lifetime: a region
// around several optimizer steps keeps using stale casts, and a no_grad forward fills the cache.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "lessons/support/lesson.h"
#include "lessons/support/trace_queries.h"

using namespace tinyamp;

namespace {

struct CastCounts {
    int converted = 0;  // casts that ran (made a new tensor): stored or not cacheable
    int stored = 0;
    int hits = 0;       // casts answered by the cache: no work, no new tensor
};

// The cast events of `trace` whose source tensor is named `name` ("" for all).
CastCounts count_casts(const trace::Trace& trace, const std::string& name = "")
{
    const lesson::Events casts = name.empty() ? lesson::casts(trace) : lesson::casts_of(trace, name);
    const int hits = static_cast<int>(lesson::count_cache(casts, trace::CacheEvent::hit));
    return {static_cast<int>(casts.size()) - hits, static_cast<int>(lesson::count_cache(casts, trace::CacheEvent::stored)), hits};
}

int backward_casts_of(const trace::Trace& trace, DType from, DType to) { return static_cast<int>(lesson::backward_casts(trace, from, to).size()); }

// A small recurrent net: h <- tanh(h W^T + x_t U^T) for kSteps steps, so W and U are used once per
// step. The weights are f32 leaves that require grad: what the cache is for.
constexpr int kSteps = 4;

struct Rnn {
    Tensor W, U, h0, target;
    std::vector<Tensor> xs;
    Rnn()
    {
        Generator gen(0);
        W = mul(randn({16, 16}, f32, gen), 0.25).requires_grad_().set_name("W");
        U = mul(randn({16, 8}, f32, gen), 0.35).requires_grad_().set_name("U");
        h0 = zeros({4, 16}).set_name("h0");
        for (int t = 0; t < kSteps; ++t) xs.push_back(randn({4, 8}, f32, gen).set_name(std::string(1, 'x').append(std::to_string(t))));
        target = randn({4, 16}, f32, gen).set_name("target");
    }
    // Forward and loss in one region with `options`, backward outside; every event into `trace`.
    void step(trace::Trace& trace, amp::AutocastOptions options) const
    {
        trace::TraceRecorder recorder(trace);
        Tensor loss;
        {
            amp::autocast region("cpu", options);
            Tensor h = h0;
            for (const Tensor& x : xs) h = tanh(add(linear(h, W), linear(x, U)));
            loss = mse_loss(h, target);
        }
        loss.backward();
    }
};

// Three SGD steps of a linear regression; the forward in one region per step or in one region
// around all three. Returns the three losses.
std::vector<double> three_steps(bool region_per_step)
{
    Generator gen(3);
    const Tensor x = randn({8, 4}, f32, gen), y = randn({8, 1}, f32, gen);
    const Tensor w = zeros({1, 4}).requires_grad_().set_name("w");
    optim::SGD opt({w}, {.lr = 0.2});
    std::vector<double> losses;
    auto one_step = [&] {
        Tensor loss;
        {
            amp::autocast region("cpu");
            loss = mse_loss(linear(x, w), y);
        }
        loss.backward();
        opt.step();
        opt.zero_grad();
        losses.push_back(loss.item());
    };
    if (region_per_step) {
        for (int i = 0; i < 3; ++i) one_step();
    } else {
        amp::autocast around_the_loop("cpu");  // the mistake: the outermost region outlives the steps
        for (int i = 0; i < 3; ++i) one_step();
    }
    return losses;
}

void step_recurrent_loop(lesson::Lesson& L)
{
    L.step("One weight, many uses: a recurrent loop");
    L.expect("4 steps of h <- tanh(h W^T + x_t U^T) in one bf16 region: W and U are each cast once (cache\n"
             "stored) and found in the cache 3 times (cache hit). The inputs x0..x3 and h0 do not require grad:\n"
             "they are cast at every use and never cached. While the region is open the cache holds 2 casts;\n"
             "when it ends the cache is empty.");
    const Rnn rnn;
    trace::Trace cached;
    std::size_t size_inside = 0;
    {
        trace::TraceRecorder recorder(cached);
        amp::autocast region("cpu");
        Tensor h = rnn.h0;
        for (const Tensor& x : rnn.xs) h = tanh(add(linear(h, rnn.W), linear(x, rnn.U)));
        size_inside = amp::autocast_cache_size();
    }
    for (const trace::Event* e : lesson::casts(cached)) std::printf("   %s\n", e->why.c_str());
    const CastCounts w_counts = count_casts(cached, "W"), u_counts = count_casts(cached, "U"), all = count_casts(cached);
    std::printf("   W: %d cast, %d hits   U: %d cast, %d hits   all casts: %d converted, %d hits; cache size %zu inside, %zu after\n",
                w_counts.converted, w_counts.hits, u_counts.converted, u_counts.hits, all.converted, all.hits, size_inside,
                amp::autocast_cache_size());
    L.check(w_counts.converted == 1 && w_counts.stored == 1 && w_counts.hits == 3, "W: cast once (stored), then 3 cache hits");
    L.check(u_counts.converted == 1 && u_counts.hits == 3, "U: cast once, then 3 cache hits");
    L.check(all.converted == 2 + kSteps + 1 && all.hits == 2 * (kSteps - 1), "7 casts ran (W, U, x0..x3, h0) and 6 were cache hits");
    L.check(size_inside == 2 && amp::autocast_cache_size() == 0, "the cache held 2 casts in the region and is empty after it");
}

void step_without_cache(lesson::Lesson& L)
{
    L.step("The same loop without the cache");
    L.expect("With {.cache_enabled = false} every use casts again: W and U are cast 4 times each, 8 weight casts\n"
             "instead of 2. The elements converted for the weights go from 256 + 128 = 384 to 4 x 384 = 1536. In\n"
             "backward, the cached run has one cast node per weight, which receives the 4 bf16 gradients summed\n"
             "(in bf16) and casts them to f32 once; without the cache there are 4 cast nodes per weight.");
    trace::Trace with_cache, without_cache;
    const Rnn a, b;
    a.step(with_cache, {});
    b.step(without_cache, {.cache_enabled = false});
    const int weight_casts_on = count_casts(with_cache, "W").converted + count_casts(with_cache, "U").converted;
    const int weight_casts_off = count_casts(without_cache, "W").converted + count_casts(without_cache, "U").converted;
    const std::int64_t weight_elements = a.W.numel() + a.U.numel();
    const double rel_w = lesson::relative_difference(a.W.grad(), b.W.grad());
    std::printf("   weight casts: %d with the cache, %d without; elements converted: %lld vs %lld\n", weight_casts_on, weight_casts_off,
                (long long)(weight_casts_on / 2 * weight_elements), (long long)(weight_casts_off / 2 * weight_elements));
    std::printf("   backward casts bf16->f32: %d with the cache, %d without; W.grad differs by %s (relative)\n",
                backward_casts_of(with_cache, bf16, f32), backward_casts_of(without_cache, bf16, f32), lesson::fmt(rel_w).c_str());
    L.check(weight_casts_on == 2 && weight_casts_off == 2 * kSteps, "2 weight casts with the cache, 8 without");
    L.check(backward_casts_of(with_cache, bf16, f32) == 2 && backward_casts_of(without_cache, bf16, f32) == 2 * kSteps,
            "backward: 2 casts bf16->f32 with the cache, 8 without");
    L.check(rel_w > 0 && rel_w < 2 * traits(bf16).eps,
            "W.grad differs a little (the cached run sums its 4 gradients in bf16, before one cast) but by < 2 bf16 eps");
    L.write_graph("rnn_cached", with_cache,
                  "Four steps of a recurrent net under bf16 autocast. Forward: W and U are cast once (cache stored); every later "
                  "use is a cache hit (dashed: nothing converted). Backward: the four bf16 gradients of W meet in that one cast "
                  "node, which turns their sum into f32 once (U likewise).");
    L.key_result("4-step recurrent loop under bf16 autocast: each weight cast once + 3 cache hits (2 weight casts vs 8 without the cache)");
}

void step_not_cached(lesson::Lesson& L, const Tensor& w, const Tensor& act)
{
    L.step("What is not cached");
    L.expect("Only casts to the autocast dtype of f32 leaves that require grad (and are not views) are cached.\n"
             "An activation, a computed tensor (w * 2, or a view such as w.t(), which autograd also records)\n"
             "and an fp32 cast (a loss input going back to f32) are made at every use; the trace says why.");
    trace::Trace kinds;
    {
        trace::TraceRecorder recorder(kinds);
        amp::autocast region("cpu");
        const Tensor h = linear(act, w);                  // act: not cached; w: stored
        linear(act, mul(w, 2.0).set_name("w*2"));          // not a leaf
        mse_loss(h, zeros({2, 4}).set_name("zeros"));      // an fp32 cast of a bf16 tensor
    }
    int cached_kinds = 0, uncached_kinds = 0;
    for (const trace::Event* e : lesson::casts(kinds)) {
        std::printf("   %s\n", e->why.c_str());
        (e->cache == trace::CacheEvent::none ? uncached_kinds : cached_kinds) += 1;
    }
    L.check(cached_kinds == 1 && count_casts(kinds, "w").stored == 1, "of the 5 casts only w's is cached");
    L.check(uncached_kinds == 4, "act (twice), w*2 and the loss input are cast without the cache");
}

void step_lifetime(lesson::Lesson& L, const Tensor& w, const Tensor& act)
{
    L.step("Lifetime: cleared when the OUTERMOST region ends");
    L.expect("Nested regions share the cache: it keeps its entries when an inner region ends and empties when\n"
             "the outermost one does (amp::clear_autocast_cache). So a region wrapped around several training\n"
             "steps keeps the bf16 casts made in the first step: optimizer.step() changes the f32 weights in\n"
             "place, but every later forward reads the old bf16 copy. The loss then never moves, while one\n"
             "region per step trains normally. A long region also keeps the casts of weights that died in it.");
    {
        amp::autocast outer("cpu");
        {
            amp::autocast inner("cpu");
            linear(act, w);
        }
        const std::size_t after_inner = amp::autocast_cache_size();
        std::printf("   cache size after the inner region: %zu\n", after_inner);
        L.check(after_inner == 1, "after the inner region ends the cache still holds w's cast");
    }
    std::printf("   cache size after the outer region: %zu\n", amp::autocast_cache_size());
    L.check(amp::autocast_cache_size() == 0, "after the outermost region it is empty");
    // Entries pile up in a long region (PyTorch issue 48049): a weight that dies inside it leaves its
    // cast in the cache, alive, until the outermost region ends.
    std::int64_t live_before = 0, live_after_all = 0, live_after_exit = 0;
    constexpr int kWeights = 20;
    {
        amp::autocast region("cpu");
        NoGradGuard no_grad;  // evaluation, say, with a freshly loaded weight each time
        live_before = memory_stats().total.live_bytes;
        for (int i = 0; i < kWeights; ++i) {
            const Tensor fresh = ones({256, 256}).requires_grad_();  // 256 KiB in f32, 128 KiB as its bf16 cast
            linear(ones({1, 256}), fresh);
        }  // each weight dies here
        live_after_all = memory_stats().total.live_bytes;
        std::printf("   %d weights made and dropped in one region: cache size %zu, live memory %s KiB more than before them\n",
                    kWeights, amp::autocast_cache_size(), lesson::fmt((live_after_all - live_before) / 1024.0).c_str());
    }
    live_after_exit = memory_stats().total.live_bytes;
    std::printf("   after the region: %s KiB more than before them\n", lesson::fmt((live_after_exit - live_before) / 1024.0).c_str());
    const std::int64_t cast_bytes = 256 * 256 * 2;
    L.check(live_after_all - live_before == kWeights * cast_bytes && live_after_exit == live_before,
            "the casts of dead weights stay alive until the region ends (20 x 128 KiB here), then are freed");
    const std::vector<double> per_step = three_steps(true), one_region = three_steps(false);
    std::printf("   losses, one region per step:        %s  %s  %s\n", lesson::fmt(per_step[0]).c_str(), lesson::fmt(per_step[1]).c_str(),
                lesson::fmt(per_step[2]).c_str());
    std::printf("   losses, one region around the loop: %s  %s  %s\n", lesson::fmt(one_region[0]).c_str(),
                lesson::fmt(one_region[1]).c_str(), lesson::fmt(one_region[2]).c_str());
    L.check(per_step[2] < per_step[1] && per_step[1] < per_step[0], "one region per step: the loss falls at every step");
    L.check(one_region[2] == one_region[0] && one_region[1] == one_region[0],
            "one region around the loop: the loss is stuck at its first value (stale bf16 weights)");
    L.key_result("one region around 3 SGD steps: loss stuck at " + lesson::fmt(one_region[0]) + " (stale casts); one region per step: " +
                 lesson::fmt(per_step[0]) + " -> " + lesson::fmt(per_step[2]));
}

void step_no_grad_trap(lesson::Lesson& L, const Tensor& act)
{
    L.step("The no_grad trap");
    L.expect("A validation forward under NoGradGuard inside the region stores w's cast; the training forward\n"
             "that follows gets it from the cache. PyTorch before PR #165068 (late 2025) stored a cast without a\n"
             "graph there, so the training forward silently lost w: no grad_fn, w.grad never set. tinyamp, like\n"
             "the fixed PyTorch, makes every cached cast with grad mode on: the hit carries the graph.");
    const Tensor wv = ones({4, 4}).requires_grad_().set_name("w");
    trace::Trace trap;
    Tensor train_out;
    bool eval_requires_grad = true;
    {
        trace::TraceRecorder recorder(trap);
        amp::autocast region("cpu");
        {
            NoGradGuard no_grad;
            eval_requires_grad = linear(act, wv).requires_grad();
        }
        train_out = linear(act, wv);
    }
    sum(train_out).backward();
    std::vector<std::string> w_events;
    for (const trace::Event* e : lesson::casts_of(trap, "w")) w_events.push_back(trace::cache_event_name(e->cache));
    std::printf("   w's casts: %s then %s; eval output requires grad: %s; training output requires grad: %s; w.grad: %s\n",
                w_events.size() > 0 ? w_events[0].c_str() : "-", w_events.size() > 1 ? w_events[1].c_str() : "-",
                eval_requires_grad ? "yes" : "no", train_out.requires_grad() ? "yes" : "no",
                wv.grad().defined() ? dtype_name(wv.grad().dtype()) : "none");
    L.check(w_events == std::vector<std::string>{"stored", "hit"}, "w's cast was stored under no_grad and hit by the training forward");
    L.check(!eval_requires_grad && train_out.requires_grad() && wv.grad().defined(),
            "the eval output has no grad, the training output does, and backward reaches w.grad");
    L.say("On an older PyTorch: run validation outside the training region (or in its own region), call\n"
          "torch.clear_autocast_cache() after it, or give it autocast(cache_enabled=False).");

}

void run(lesson::Lesson& L)
{
    L.say("A weight used by several ops in one region would be cast f32->bf16 by each of them. Autocast's\n"
          "cast cache (PyTorch's cached_cast) casts it once and hands the same bf16 tensor to every later use.");
    step_recurrent_loop(L);
    step_without_cache(L);
    // A weight and an activation for steps 3 to 5.
    const Tensor w = ones({4, 4}).requires_grad_().set_name("w");
    const Tensor act = ones({2, 4}).set_name("act");
    step_not_cached(L, w, act);
    step_lifetime(L, w, act);
    step_no_grad_trap(L, act);
}

const lesson::Registration registered{{8, "cast_cache", "The cast cache: cast a weight once per region",
                                       "cached casts of f32 weights, cleared when the outermost region ends", run}};

}  // namespace
