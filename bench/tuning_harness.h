#pragma once
// What the GEMM tuning tools (amx_tuning.cpp, f32_tuning.cpp) share: their command line, and
// timing in rounds. A VM's neighbours change its speed within seconds (the lent Xeon ran whole
// seconds at half speed), so each repetition times every candidate once, the peer included, and
// the table shows each candidate's median and every repetition.

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace tinyamp::bench::tuning {

struct Options {
    std::vector<int> sizes{256, 512, 1024};
    std::vector<int> threads{1, 2};
    int reps = 5;
    bool check = false;   ///< --check: compare every variant's bits with the tier's, time nothing
    bool phases = false;  ///< --phases: where the tier's time goes, per thread (gemm_phases.h), `reps` rounds
};

/// Reads --check, --phases, --sizes 256,512, --threads 1,2 and --reps 5 into `options`. False
/// (after printing the usage of `tool` to stderr) on anything else, and for --phases with more
/// than 2 threads.
bool parse_options(int argc, char** argv, const char* tool, Options& options);

/// For every size and thread count of `options`: `phases` (with --phases) or, after printing
/// `legend`, `timing`; each is given n, the thread count and options.reps. Returns 0 (main's
/// exit status).
using CaseFn = void (*)(std::int64_t n, int threads, int reps);
int run_cases(const Options& options, CaseFn phases, CaseFn timing, const char* legend);

/// The median, as the benchmark's summary takes it (Timing::median, result_collector.h).
double median(std::vector<double> seconds);

/// How many timed calls of an N^3 product one repetition takes (fewer as N grows).
int calls_for(std::int64_t n);

/// Median seconds of `calls` calls, after two untimed ones.
template <class Fn>
double time_calls(Fn&& fn, int calls)
{
    fn();
    fn();
    std::vector<double> seconds;
    for (int i = 0; i < calls; ++i) {
        const auto start = std::chrono::steady_clock::now();
        fn();
        seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return median(seconds);
}

/// "  name   GFLOP/s  ratio r  (each repetition: ...)": `seconds` per call, one per repetition;
/// ratio = the peer's median time / this one's (above 1: faster than the peer).
void print_row(const std::string& name, double flop, double peer_median_seconds, const std::vector<double>& seconds);

}  // namespace tinyamp::bench::tuning
