#include "bench/dispatch_bench.h"

#include <benchmark/benchmark.h>

#include <optional>

#include <tinyamp/tinyamp.h>

#include "bench/library_switch.h"

namespace tinyamp::bench {

namespace {

// A case's two names: its key in the benchmark names and its label in the summary.
struct CaseNames {
    const char* key;
    const char* label;
};

CaseNames names_of(DispatchCase c)
{
    switch (c) {
    case DispatchCase::add_4x4: return {"add_4x4", "add, 4x4 f32"};
    case DispatchCase::linear_forward: return {"linear_forward", "Linear(8,8) forward, x [4,8]"};
    case DispatchCase::forward_backward: return {"forward_backward", "Linear(8,8)+relu+sum, fwd+bwd"};
    }
    return {"?", "?"};
}

void time_add(benchmark::State& state, bool autocast)
{
    const Tensor a = randn({4, 4}), b = randn({4, 4});
    std::optional<amp::autocast> region;
    if (autocast) region.emplace("cpu");  // bf16, CPU policy; add is on no cast list, so it stays f32
    for (auto _ : state) benchmark::DoNotOptimize(add(a, b));
}

// The region is entered once around the loop, as in `with autocast(): for ...: y = fc(x)`: the
// weight's bf16 copy comes from the cast cache after the first call, x is cast on every call.
void time_linear_forward(benchmark::State& state, bool autocast)
{
    nn::Linear fc(8, 8);
    const Tensor x = randn({4, 8});
    std::optional<amp::autocast> region;
    if (autocast) region.emplace("cpu");
    for (auto _ : state) benchmark::DoNotOptimize(fc(x));
}

// One region per step, as a training loop has it: each step casts the weight again (the cache is
// cleared when the region ends) and backward runs outside the region, as PyTorch recommends.
void time_forward_backward(benchmark::State& state, bool autocast)
{
    nn::Linear fc(8, 8);
    const Tensor x = randn({4, 8});
    for (auto _ : state) {
        fc.zero_grad();
        Tensor loss;
        {
            std::optional<amp::autocast> region;
            if (autocast) region.emplace("cpu");
            loss = sum(relu(fc(x)));
        }
        loss.backward();
        benchmark::DoNotOptimize(fc.weight.grad());
    }
}

void time_dispatch(benchmark::State& state, DispatchCase c, bool autocast)
{
    wait_when_library_changes(Library::tinyamp);
    set_num_threads(2);  // tinyamp's default (the GEMM benchmarks change it)
    manual_seed(0);
    switch (c) {
    case DispatchCase::add_4x4: time_add(state, autocast); break;
    case DispatchCase::linear_forward: time_linear_forward(state, autocast); break;
    case DispatchCase::forward_backward: time_forward_backward(state, autocast); break;
    }
}

}  // namespace

const char* dispatch_case_label(DispatchCase c) { return names_of(c).label; }

const char* dispatch_autocast_note(DispatchCase c)
{
    return c == DispatchCase::forward_backward ? "region entered per step" : "region entered once, around the loop";
}

std::string dispatch_bench_name(DispatchCase c, bool autocast)
{
    return std::string("dispatch/") + names_of(c).key + (autocast ? "/autocast" : "/plain");
}

void register_dispatch_benchmarks()
{
    for (DispatchCase c : kDispatchCases)
        for (bool autocast : {false, true})
            benchmark::RegisterBenchmark(dispatch_bench_name(c, autocast).c_str(),
                                         [=](benchmark::State& state) { time_dispatch(state, c, autocast); })
                ->UseRealTime()
                ->MinTime(0.2)
                ->Repetitions(5)
                ->Unit(benchmark::kMicrosecond);
}

}  // namespace tinyamp::bench
