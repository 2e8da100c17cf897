#pragma once
// The f32 and bf16 cases of a training benchmark (the digits epoch, the GPT step): each repetition
// is one iteration, timed by the training loop's own clock (Google Benchmark's manual time), in ms.

#include <benchmark/benchmark.h>

#include <string>

namespace tinyamp::bench {

inline void register_per_mode(std::string (*name_of)(bool bf16), void (*time)(benchmark::State&, bool bf16), int repetitions)
{
    for (bool bf16 : {false, true})
        benchmark::RegisterBenchmark(name_of(bf16).c_str(), [=](benchmark::State& state) { time(state, bf16); })
            ->UseManualTime()
            ->Iterations(1)
            ->Repetitions(repetitions)
            ->Unit(benchmark::kMillisecond);
}

}  // namespace tinyamp::bench
