#include "bench/tuning_harness.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "bench/result_collector.h"

namespace tinyamp::bench::tuning {
namespace {

std::vector<int> parse_list(const char* text)
{
    std::vector<int> values;
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, ',');) values.push_back(std::atoi(item.c_str()));
    return values;
}

}  // namespace

bool parse_options(int argc, char** argv, const char* tool, Options& options)
{
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const bool has_value = i + 1 < argc && *argv[i + 1];
        if (arg == "--check")
            options.check = true;
        else if (arg == "--phases")
            options.phases = true;
        else if (arg == "--sizes" && has_value)
            options.sizes = parse_list(argv[++i]);
        else if (arg == "--threads" && has_value)
            options.threads = parse_list(argv[++i]);
        else if (arg == "--reps" && has_value)
            options.reps = std::max(1, std::atoi(argv[++i]));
        else if (arg == "--rounds" && has_value)
            options.rounds = std::max(1, std::atoi(argv[++i]));
        else {
            std::fprintf(stderr, "unknown argument '%s'\nusage: %s [--check | --phases] [--sizes 256,512] [--threads 1,2] [--reps 5 | --rounds 100]\n",
                         arg.c_str(), tool);
            return false;
        }
    }
    if (options.phases && std::any_of(options.threads.begin(), options.threads.end(), [](int t) { return t < 1 || t > 2; })) {
        std::fprintf(stderr, "%s --phases records one or two threads: give --threads 1, 2 or 1,2\n", tool);
        return false;
    }
    return true;
}

int run_cases(const Options& options, CaseFn phases, CaseFn timing, const char* legend)
{
    if (!options.phases) std::printf("%s\n", legend);
    for (int n : options.sizes)
        for (int t : options.threads) (options.phases ? phases : timing)(n, t, options);
    return 0;
}

double median(std::vector<double> seconds) { return Timing{std::move(seconds), {}, {}}.median(); }

int calls_for(std::int64_t n) { return n <= 256 ? 60 : n <= 512 ? 30 : n <= 1024 ? 10 : 4; }

namespace {

/// "  name   GFLOP/s  ratio r  (each repetition: ...)": `seconds` per call, one per repetition;
/// ratio = the peer's median time / this one's (above 1: faster than the peer).
void print_row(const std::string& name, double flop, double peer_median_seconds, const std::vector<double>& seconds)
{
    const double mid = median(seconds);
    std::printf("  %-40s %8.1f  ratio %.2f  (each repetition:", name.c_str(), flop / mid / 1e9, peer_median_seconds / mid);
    for (double s : seconds) std::printf(" %.0f", flop / s / 1e9);
    std::printf(")\n");
}

/// The q-quantile (0..1) of `values`, by the nearest rank.
double quantile(std::vector<double> values, double q)
{
    std::sort(values.begin(), values.end());
    const auto rank = static_cast<std::size_t>(q * double(values.size() - 1) + 0.5);
    return values[rank];
}

void time_in_repetitions(std::int64_t n, const Options& options, const std::vector<Candidate>& candidates, const std::function<void()>& settle)
{
    const int calls = calls_for(n);
    std::vector<std::vector<double>> seconds(candidates.size());
    for (int rep = 0; rep < options.reps; ++rep)
        for (std::size_t c = 0; c < candidates.size(); ++c) {
            seconds[c].push_back(time_calls(candidates[c].run, calls));
            if (c == 0) settle();
        }
    const double flop = 2.0 * double(n) * double(n) * double(n), peer = median(seconds[0]);
    for (std::size_t c = 0; c < candidates.size(); ++c) print_row(candidates[c].name, flop, peer, seconds[c]);
}

void time_in_rounds(std::int64_t n, const Options& options, const std::vector<Candidate>& candidates, const std::function<void()>& settle)
{
    std::vector<std::vector<double>> seconds(candidates.size());
    const std::size_t others = candidates.size() - 1;
    for (int round = -2; round < options.rounds; ++round)  // two untimed rounds first
        for (std::size_t turn = 0; turn < candidates.size(); ++turn) {
            // The peer first, then the others starting one further along each round: the one timed
            // right after the peer's pause ran slow on two threads (tuning_harness.h), and so each
            // candidate takes that turn in as many rounds as the others.
            const std::size_t c = turn == 0 ? 0 : 1 + (std::size_t(round + 2) + turn - 1) % others;
            candidates[c].run();  // untimed: its threads woken, its workspace and operands in cache
            const double s = seconds_of(candidates[c].run);
            if (round >= 0) seconds[c].push_back(s);
            if (c == 0) settle();
        }
    const double flop = 2.0 * double(n) * double(n) * double(n);
    for (std::size_t c = 0; c < candidates.size(); ++c) {
        std::vector<double> ratios;
        for (int r = 0; r < options.rounds; ++r) ratios.push_back(seconds[0][r] / seconds[c][r]);
        std::printf("  %-40s %8.1f  ratio %.3f  (quartiles %.3f %.3f; fastest %.1f GFLOP/s)\n", candidates[c].name.c_str(),
                    flop / median(seconds[c]) / 1e9, quantile(ratios, 0.5), quantile(ratios, 0.25), quantile(ratios, 0.75),
                    flop / quantile(seconds[c], 0.0) / 1e9);
    }
}

}  // namespace

void time_candidates(std::int64_t n, int threads, const Options& options, const std::vector<Candidate>& candidates,
                     const std::function<void()>& settle)
{
    const std::string& peer = candidates.front().name;
    if (options.rounds > 0)
        std::printf("\nN = %lld, %d thread(s): GFLOP/s (median of %d rounds of one product each); ratio = the median over rounds of "
                    "%s's time / this one's in the same round\n",
                    (long long)n, threads, options.rounds, peer.c_str());
    else
        std::printf("\nN = %lld, %d thread(s): GFLOP/s, median of %d repetitions (ratio = %s's time / this one's)\n", (long long)n,
                    threads, options.reps, peer.c_str());
    (options.rounds > 0 ? time_in_rounds : time_in_repetitions)(n, options, candidates, settle);
    std::fflush(stdout);
}

}  // namespace tinyamp::bench::tuning
