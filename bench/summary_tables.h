#pragma once
// The summary printed after all benchmarks ran: the GEMM ratio table, the per-op overhead table
// and the digits epoch times, each figure a median over repetitions, each target marked met or
// not. Benchmarks left out with --benchmark_filter show as "-".

#include <cstdint>
#include <iosfwd>

namespace tinyamp::bench {

class ResultCollector;

/// The targets of issue 6 (benchmarks, not tests: a miss is reported, never hidden).
struct Targets {
    std::int64_t gemm_min_n = 512;       ///< the GEMM targets apply from this N up
    double f32_vs_openblas = 0.9;        ///< tinyamp f32 / OpenBLAS sgemm
    double bf16_vs_onednn = 0.9;         ///< tinyamp bf16 / oneDNN bf16
    double bf16_vs_f32 = 1.8;            ///< tinyamp bf16 / tinyamp f32
    double linear_autocast_us = 1.4;     ///< Linear(8,8) forward under autocast
    double digits_f32_epoch_ms = 6.0;    ///< digits MLP epoch in f32 (and bf16 must be faster)
};

/// Returns the number of targets not met (0 when all were met or none could be judged).
int print_summary(std::ostream& out, const ResultCollector& results, const Targets& targets = {});

}  // namespace tinyamp::bench
