#include "bench/digits_epoch_bench.h"

#include <benchmark/benchmark.h>

#include "bench/library_switch.h"
#include "bench/per_mode_benchmarks.h"
#include "training/trainer.h"

namespace tinyamp::bench {

namespace {

train::TrainConfig one_epoch_config(bool bf16)
{
    train::TrainConfig config;  // tinyamp-train's defaults: mlp, batch 64, lr 0.05, momentum 0.9, seed 0
    config.model = train::ModelKind::mlp;
    config.mode = bf16 ? train::Mode::bf16 : train::Mode::f32;
    config.epochs = 1;
    return config;
}

// Each iteration is one call of tinyamp-train's loop for one epoch. The time taken is the loop's
// own measure of the epoch's training steps (EpochStats::seconds): loading the data, making the
// model and the evaluation after the epoch are left out.
void time_digits_epoch(benchmark::State& state, bool bf16)
{
    wait_when_library_changes(Library::tinyamp);
    set_num_threads(2);  // tinyamp's default (the GEMM benchmarks change it)
    static bool warmed_up[2] = {false, false};
    if (!warmed_up[bf16]) {  // the first epoch of the process also pays for first-touch page faults
        train::run_training(one_epoch_config(bf16));
        warmed_up[bf16] = true;
    }
    for (auto _ : state) {
        const train::TrainResult result = train::run_training(one_epoch_config(bf16));
        state.SetIterationTime(result.epochs.at(0).seconds);
    }
}

}  // namespace

std::string digits_bench_name(bool bf16) { return bf16 ? "digits_epoch/bf16" : "digits_epoch/f32"; }

void register_digits_epoch_benchmarks()
{
    register_per_mode(digits_bench_name, time_digits_epoch, 9);
}

}  // namespace tinyamp::bench
