#include "bench/summary_tables.h"

#include <algorithm>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "bench/digits_epoch_bench.h"
#include "bench/dispatch_bench.h"
#include "bench/gemm_bench.h"
#include "bench/result_collector.h"

namespace tinyamp::bench {

namespace {

std::string format(const char* pattern, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char* pattern, ...)
{
    char buffer[256];
    va_list args;
    va_start(args, pattern);
    std::vsnprintf(buffer, sizeof buffer, pattern, args);
    va_end(args);
    return buffer;
}

// Counts how often a target was met, and remembers the worst case, for the closing lines.
struct TargetTally {
    std::string text;
    int met = 0, judged = 0;
    double worst = 0;
    std::string worst_where;

    // `higher_is_better`: a ratio that must reach `goal`; otherwise a time that must stay below it.
    std::string judge(double value, double goal, bool higher_is_better, const std::string& where)
    {
        const bool ok = higher_is_better ? value >= goal : value <= goal;
        const bool worse = judged == 0 || (higher_is_better ? value < worst : value > worst);
        if (worse) {
            worst = value;
            worst_where = where;
        }
        ++judged;
        met += ok;
        return ok ? "met" : "MISS";
    }
};

// True when a benchmark whose name starts with `prefix` ran (the others were filtered out).
bool any_ran(const ResultCollector& results, const std::string& prefix)
{
    for (const auto& [name, timing] : results.all())
        if (name.rfind(prefix, 0) == 0 && !timing.seconds.empty()) return true;
    return false;
}

std::optional<double> median_seconds(const ResultCollector& results, const std::string& name)
{
    const Timing* t = results.find(name);
    if (!t) return std::nullopt;
    return t->median();
}

std::string cell(std::optional<double> value, const char* pattern, int width)
{
    return value ? format(pattern, *value) : format("%*s", width, "-");
}

std::optional<double> ratio(std::optional<double> a, std::optional<double> b)
{
    if (!a || !b || *b == 0) return std::nullopt;
    return *a / *b;
}

// A ratio followed by its verdict ("met", "MISS"; blank below the N where targets apply).
std::string judged_ratio(std::optional<double> value, double goal, bool applies, TargetTally& tally, const std::string& where)
{
    std::string verdict = (value && applies) ? tally.judge(*value, goal, true, where) : "";
    return cell(value, "%5.2f", 5) + format(" %-4s", verdict.c_str());
}

void print_gemm_table(std::ostream& out, const ResultCollector& results, const Targets& targets, std::vector<TargetTally>& tallies)
{
    TargetTally f32_tally{format("tinyamp f32  >= %.2fx OpenBLAS sgemm", targets.f32_vs_openblas)};
    TargetTally bf16_tally{format("tinyamp bf16 >= %.2fx oneDNN bf16", targets.bf16_vs_onednn)};
    TargetTally speedup_tally{format("tinyamp bf16 >= %.2fx tinyamp f32", targets.bf16_vs_f32)};
    if (!any_ran(results, "gemm/")) return;

    out << "\nGEMM  C = A B, square N x N, row-major; GFLOP/s = 2 N^3 / median time (higher is better)\n"
        << "   N thr | tinyamp f32 OpenBLAS f32  ratio      | tinyamp f16 | tinyamp bf16 oneDNN bf16  ratio      | bf16/f32\n"
        << "  ------ + ------------------------------------- + ----------- + ------------------------------------- + ----------\n";
    std::set<std::string> onednn_impls;
    for (std::int64_t n : kGemmSizes)
        for (int threads : kGemmThreads) {
            const auto gflops = [&](GemmImpl impl) -> std::optional<double> {
                const std::optional<double> s = median_seconds(results, gemm_bench_name(impl, n, threads));
                if (!s) return std::nullopt;
                return gemm_flops(n) / *s / 1e9;
            };
            const auto f32 = gflops(GemmImpl::tinyamp_f32), blas = gflops(GemmImpl::openblas_f32), f16 = gflops(GemmImpl::tinyamp_f16),
                       bf16 = gflops(GemmImpl::tinyamp_bf16), dnnl = gflops(GemmImpl::onednn_bf16);
            if (!f32 && !blas && !f16 && !bf16 && !dnnl) continue;
            if (const Timing* t = results.find(gemm_bench_name(GemmImpl::onednn_bf16, n, threads)); t && !t->label.empty())
                onednn_impls.insert(t->label);
            const bool applies = n >= targets.gemm_min_n;
            const std::string where = format("N=%lld, %d thread%s", static_cast<long long>(n), threads, threads > 1 ? "s" : "");
            out << format("  %4lld %2d | ", static_cast<long long>(n), threads) << cell(f32, "%11.1f", 11) << ' '
                << cell(blas, "%12.1f", 12) << "  " << judged_ratio(ratio(f32, blas), targets.f32_vs_openblas, applies, f32_tally, where)
                << "  | " << cell(f16, "%11.1f", 11) << " | " << cell(bf16, "%12.1f", 12) << ' ' << cell(dnnl, "%11.1f", 11) << "  "
                << judged_ratio(ratio(bf16, dnnl), targets.bf16_vs_onednn, applies, bf16_tally, where) << "  | "
                << judged_ratio(ratio(bf16, f32), targets.bf16_vs_f32, applies, speedup_tally, where) << '\n';
        }
    out << format("  Targets apply from N = %lld (met / MISS); below it the ratios are for information.\n",
                  static_cast<long long>(targets.gemm_min_n));
    for (const std::string& impl : onednn_impls) out << "  oneDNN implementation: " << impl << '\n';
    tallies.push_back(f32_tally);
    tallies.push_back(bf16_tally);
    tallies.push_back(speedup_tally);
}

void print_dispatch_table(std::ostream& out, const ResultCollector& results, const Targets& targets, std::vector<TargetTally>& tallies)
{
    TargetTally linear_tally{format("Linear(8,8) forward under autocast <= %.1f us", targets.linear_autocast_us)};
    if (!any_ran(results, "dispatch/")) return;
    out << "\nPer-op overhead, microseconds per call (lower is better); autocast = amp::autocast(\"cpu\"), bf16\n"
        << "  case                             plain  autocast  autocast/plain  how the region is entered\n";
    for (DispatchCase c : kDispatchCases) {
        const auto us = [&](bool autocast) -> std::optional<double> {
            const std::optional<double> s = median_seconds(results, dispatch_bench_name(c, autocast));
            if (!s) return std::nullopt;
            return *s * 1e6;
        };
        const auto plain = us(false), with_autocast = us(true);
        if (!plain && !with_autocast) continue;
        std::string verdict;
        if (c == DispatchCase::linear_forward && with_autocast)
            verdict = format("  target <= %.1f us: %s", targets.linear_autocast_us,
                             linear_tally.judge(*with_autocast, targets.linear_autocast_us, false, "").c_str());
        out << format("  %-31s", dispatch_case_label(c)) << cell(plain, "%6.2f", 6) << cell(with_autocast, "%10.2f", 10)
            << cell(ratio(with_autocast, plain), "%16.2f", 16) << "  " << dispatch_autocast_note(c) << verdict << '\n';
    }
    tallies.push_back(linear_tally);
}

void print_digits_table(std::ostream& out, const ResultCollector& results, const Targets& targets, std::vector<TargetTally>& tallies)
{
    TargetTally f32_tally{format("digits epoch in f32 <= %.1f ms", targets.digits_f32_epoch_ms)};
    TargetTally bf16_tally{"digits epoch in bf16 faster than in f32"};
    const std::optional<double> f32 = median_seconds(results, digits_bench_name(false)),
                                bf16 = median_seconds(results, digits_bench_name(true));
    if (!f32 && !bf16) return;
    const Timing* t = results.find(digits_bench_name(false));
    out << "\nDigits MLP, one training epoch as tinyamp-train --model mlp runs it (64-256-256-10, batch 64, 1437 samples),\n"
        << "milliseconds (median of " << (t ? t->seconds.size() : 0) << " epochs after a warm-up; lower is better)\n";
    if (f32)
        out << format("  f32   %7.2f ms  target <= %.1f ms: %s\n", *f32 * 1e3, targets.digits_f32_epoch_ms,
                      f32_tally.judge(*f32 * 1e3, targets.digits_f32_epoch_ms, false, "").c_str());
    if (bf16) out << format("  bf16  %7.2f ms", *bf16 * 1e3);
    if (const auto speedup = ratio(f32, bf16))
        out << format("  f32/bf16 = %.2fx  target bf16 faster than f32: %s", *speedup,
                      bf16_tally.judge(*speedup, 1.0, true, "").c_str());
    out << '\n';
    tallies.push_back(f32_tally);
    tallies.push_back(bf16_tally);
}

void print_noise(std::ostream& out, const ResultCollector& results)
{
    std::vector<std::pair<double, std::string>> spreads;
    for (const auto& [name, timing] : results.all())
        if (!timing.seconds.empty()) spreads.emplace_back(timing.spread(), name);
    if (spreads.empty()) return;
    std::sort(spreads.rbegin(), spreads.rend());
    out << "\nNoise: (slowest - fastest) / median over the repetitions; the noisiest benchmarks:\n";
    for (std::size_t i = 0; i < std::min<std::size_t>(3, spreads.size()); ++i)
        out << format("  %5.1f%%  %s\n", spreads[i].first * 100, spreads[i].second.c_str());
}

}  // namespace

int print_summary(std::ostream& out, const ResultCollector& results, const Targets& targets)
{
    std::vector<TargetTally> tallies;
    print_gemm_table(out, results, targets, tallies);
    print_dispatch_table(out, results, targets, tallies);
    print_digits_table(out, results, targets, tallies);
    print_noise(out, results);

    int missed = 0;
    out << "\nTargets (benchmarks, not tests):\n";
    if (std::none_of(tallies.begin(), tallies.end(), [](const TargetTally& t) { return t.judged > 0; }))
        out << "  none judged in this run (their benchmarks were filtered out, or N was below " << targets.gemm_min_n << ")\n";
    for (const TargetTally& t : tallies) {
        if (t.judged == 0) continue;
        const bool all_met = t.met == t.judged;
        missed += !all_met;
        out << format("  %-48s %-7s", t.text.c_str(), all_met ? "met" : "NOT MET");
        if (t.judged > 1) out << format(" (met in %d of %d rows; worst %.2f at %s)", t.met, t.judged, t.worst, t.worst_where.c_str());
        out << '\n';
    }
    return missed;
}

}  // namespace tinyamp::bench
