#pragma once
// A Google Benchmark reporter that keeps the results instead of printing them: for each benchmark,
// the time per iteration of every repetition. The summary tables are printed from it at the end
// (summary_tables.h); while the benchmarks run it prints one short progress line per benchmark.

#include <benchmark/benchmark.h>

#include <iosfwd>
#include <map>
#include <string>
#include <vector>

namespace tinyamp::bench {

struct Timing {
    std::vector<double> seconds;  ///< per iteration, one value per repetition
    std::string label;            ///< the benchmark's SetLabel (e.g. oneDNN's implementation)
    std::string error;            ///< not empty when the benchmark failed (SkipWithError)

    double median() const;
    /// (slowest - fastest) / median over the repetitions: how noisy the figure is.
    double spread() const;
};

class ResultCollector : public benchmark::BenchmarkReporter {
public:
    explicit ResultCollector(std::ostream& progress) : progress_(progress) {}

    bool ReportContext(const Context& context) override;
    void ReportRuns(const std::vector<Run>& runs) override;

    /// The timing of the benchmark registered under `name`, or nullptr when it did not run
    /// (filtered out with --benchmark_filter).
    const Timing* find(const std::string& name) const;
    const std::map<std::string, Timing>& all() const { return timings_; }

private:
    std::ostream& progress_;
    std::map<std::string, Timing> timings_;
};

}  // namespace tinyamp::bench
