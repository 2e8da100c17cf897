#pragma once
// One training epoch of the digits MLP, exactly as tinyamp-train runs it (tools/train: 64-256-256-10,
// batch 64, SGD with momentum, 1437 training samples), in f32 and under bf16 autocast: the time a
// student waits, and whether autocast pays on a small model.

#include <string>

namespace tinyamp::bench {

/// "digits_epoch/f32" or "digits_epoch/bf16".
std::string digits_bench_name(bool bf16);

void register_digits_epoch_benchmarks();

}  // namespace tinyamp::bench
