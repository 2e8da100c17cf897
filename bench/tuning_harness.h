#pragma once
// What the GEMM tuning tools (amx_tuning.cpp, f32_tuning.cpp) share: their command line, and
// timing in turns. A VM's neighbours change its speed within seconds (the lent Xeon, and a 2-vCPU
// Emerald Rapids Xeon, ran whole seconds at two thirds or half speed), so each repetition times every
// candidate once, the peer included, and the table shows each candidate's median and every
// repetition. With --rounds, the turns are single products instead: each round runs every
// candidate once, and each ratio is taken within a round, so a speed change between rounds
// cancels out of it.

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tinyamp::bench::tuning {

struct Options {
    std::vector<int> sizes{256, 512, 1024};
    std::vector<int> threads{1, 2};
    int reps = 5;
    int rounds = 0;       ///< --rounds R: R rounds of one product per candidate instead of `reps` repetitions
    bool check = false;   ///< --check: compare every variant's bits with the tier's, time nothing
    bool phases = false;  ///< --phases: where the tier's time goes, per thread (gemm_phases.h), `reps` rounds
};

/// Reads --check, --phases, --sizes 256,512, --threads 1,2, --reps 5 and --rounds 100 into `options`. False
/// (after printing the usage of `tool` to stderr) on anything else, and for --phases with more
/// than 2 threads.
bool parse_options(int argc, char** argv, const char* tool, Options& options);

/// For every size and thread count of `options`: `phases` (with --phases) or, after printing
/// `legend`, `timing`; each is given n, the thread count and the options. Returns 0 (main's
/// exit status).
using CaseFn = void (*)(std::int64_t n, int threads, const Options& options);
int run_cases(const Options& options, CaseFn phases, CaseFn timing, const char* legend);

/// The median, as the benchmark's summary takes it (Timing::median, result_collector.h).
double median(std::vector<double> seconds);

/// How many timed calls of an N^3 product one repetition takes (fewer as N grows).
int calls_for(std::int64_t n);

/// Seconds one call of `fn` takes.
template <class Fn>
double seconds_of(Fn&& fn)
{
    const auto start = std::chrono::steady_clock::now();
    fn();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// Median seconds of `calls` calls, after two untimed ones.
template <class Fn>
double time_calls(Fn&& fn, int calls)
{
    fn();
    fn();
    std::vector<double> seconds;
    for (int i = 0; i < calls; ++i) seconds.push_back(seconds_of(fn));
    return median(seconds);
}

/// One product of a candidate (the tier, a variant, or the peer every ratio is taken against).
struct Candidate {
    std::string name;
    std::function<void()> run;
};

/// Times `candidates` on N^3 products and prints the table. candidates[0] is the peer; `settle`
/// runs after the peer's products (a pause while OpenBLAS's or OpenMP's threads stop spinning,
/// so that they do not take the next candidate's cores). Without --rounds: options.reps
/// repetitions, each the median of calls_for(n) products of every candidate in turn; ratio = the
/// peer's median / this one's. With --rounds R: R rounds of one timed product of every candidate,
/// each right after an untimed one (so no candidate pays for waking threads that the one before
/// it, or the pause, put to sleep), after two untimed rounds; ratio = the median over rounds of the
/// peer's time / this one's in the same round, with its quartiles. The candidate timed first
/// after the pause changes from round to round (candidates[1] in the first, candidates[2] in the
/// next, ...): on two threads one untimed product is not always enough after the pause, and on an
/// Emerald Rapids Xeon VM the candidate always timed there ran at 0.64 of the peer at N = 256
/// where variants differing from it only in prefetch or MC ran at 0.75, and at 0.938 at N = 1024
/// where a candidate running the very same code, timed last, made 0.972.
void time_candidates(std::int64_t n, int threads, const Options& options, const std::vector<Candidate>& candidates,
                     const std::function<void()>& settle);

}  // namespace tinyamp::bench::tuning
