#include "bench/result_collector.h"

#include <algorithm>
#include <iomanip>
#include <ostream>

namespace tinyamp::bench {

double Timing::median() const
{
    if (seconds.empty()) return 0;
    std::vector<double> sorted = seconds;
    std::sort(sorted.begin(), sorted.end());
    const std::size_t mid = sorted.size() / 2;
    return sorted.size() % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

double Timing::spread() const
{
    if (seconds.empty()) return 0;
    const auto [lo, hi] = std::minmax_element(seconds.begin(), seconds.end());
    return (*hi - *lo) / median();
}

bool ResultCollector::ReportContext(const Context& context)
{
    progress_ << "Google Benchmark: " << context.cpu_info.num_cpus << " CPUs at " << std::fixed << std::setprecision(0)
              << context.cpu_info.cycles_per_second / 1e6 << " MHz"
              << (context.cpu_info.scaling == benchmark::CPUInfo::ENABLED ? " (frequency scaling on: figures may vary)" : "") << '\n';
    return true;
}

void ResultCollector::ReportRuns(const std::vector<Run>& runs)
{
    // Google Benchmark calls this with the repetitions of one benchmark, then again with their
    // aggregates (mean, median, ...); we keep the repetitions and compute the median ourselves.
    std::string name;
    for (const Run& run : runs) {
        if (run.run_type != Run::RT_Iteration) continue;
        name = run.run_name.function_name;
        Timing& timing = timings_[name];
        if (run.error_occurred) {
            timing.error = run.error_message;
            continue;
        }
        timing.seconds.push_back(run.real_accumulated_time / double(run.iterations));  // manual time too, when used
        timing.label = run.report_label;
    }
    if (name.empty()) return;
    const Timing& timing = timings_[name];
    progress_ << "  " << std::left << std::setw(40) << name << std::right;
    if (!timing.error.empty())
        progress_ << " FAILED: " << timing.error << '\n';
    else if (timing.median() >= 1e-3)
        progress_ << std::fixed << std::setprecision(3) << std::setw(10) << timing.median() * 1e3 << " ms (median of "
                  << timing.seconds.size() << ")\n";
    else
        progress_ << std::fixed << std::setprecision(3) << std::setw(10) << timing.median() * 1e6 << " us (median of "
                  << timing.seconds.size() << ")\n";
    progress_.flush();
}

const Timing* ResultCollector::find(const std::string& name) const
{
    const auto it = timings_.find(name);
    return it == timings_.end() || it->second.seconds.empty() ? nullptr : &it->second;
}

}  // namespace tinyamp::bench
