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
        else {
            std::fprintf(stderr, "unknown argument '%s'\nusage: %s [--check | --phases] [--sizes 256,512] [--threads 1,2] [--reps 5]\n",
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
        for (int t : options.threads) (options.phases ? phases : timing)(n, t, options.reps);
    return 0;
}

double median(std::vector<double> seconds) { return Timing{std::move(seconds), {}, {}}.median(); }

int calls_for(std::int64_t n) { return n <= 256 ? 60 : n <= 512 ? 30 : n <= 1024 ? 10 : 4; }

void print_row(const std::string& name, double flop, double peer_median_seconds, const std::vector<double>& seconds)
{
    const double mid = median(seconds);
    std::printf("  %-40s %8.1f  ratio %.2f  (each repetition:", name.c_str(), flop / mid / 1e9, peer_median_seconds / mid);
    for (double s : seconds) std::printf(" %.0f", flop / s / 1e9);
    std::printf(")\n");
}

}  // namespace tinyamp::bench::tuning
