// The labs' test program: every lessons/NN_topic/lab_test.cpp, one doctest suite per lab.
// Students run a lab with  scripts/lab check 02,  which builds lab_02 and runs it (labs -ts=lab02 runs
// the same suite from the program with every lab).
//
// With TINYAMP_LAB_RESULTS=FILE in the environment it also writes, per test case, whether it
// passed, its checks passed and failed, and the text of each failure, as JSON to FILE. The `lab`
// command (scripts/lab) reads those files for `lab list` and `lab grade`.
//
// Compiled with TINYAMP_LAB_ON_TWO_PROCESSES (lab 21's program) main() starts the checks again
// under mpiexec on 2 processes (two_processes.h); every rank runs them, rank 0 alone prints and
// writes the results, and the exit status is the worst rank's.
#ifdef TINYAMP_LAB_ON_TWO_PROCESSES
#define DOCTEST_CONFIG_IMPLEMENT
#else
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#endif
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string json_string(const std::string& text)
{
    std::string out = "\"";
    for (const unsigned char c : text) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\t': out += "\\t"; break;
        default:
            if (c < 0x20) {
                char escaped[8];
                std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
                out += escaped;
            } else {
                out += char(c);
            }
        }
    }
    return out + "\"";
}

struct CaseResult {
    std::string name;
    bool passed = false;
    int checks = 0;
    int failed_checks = 0;
    std::string output;  // each failure as the console shows it: where, the check, its values, its message
};

// A doctest listener: it watches the run beside the console reporter and writes the JSON at the end.
class LabResultsListener : public doctest::IReporter {
public:
    explicit LabResultsListener(const doctest::ContextOptions&) {}

    void report_query(const doctest::QueryData&) override {}
    void test_run_start() override {}
    void test_case_reenter(const doctest::TestCaseData&) override {}
    void subcase_start(const doctest::SubcaseSignature&) override {}
    void subcase_end() override {}
    void log_message(const doctest::MessageData&) override {}
    void test_case_skipped(const doctest::TestCaseData&) override {}

    void test_case_start(const doctest::TestCaseData& data) override
    {
        current_ = CaseResult{};
        current_.name = data.m_name;
    }

    void log_assert(const doctest::AssertData& data) override
    {
        if (!data.m_failed) return;
        std::ostringstream out;
        out << data.m_file << ":" << data.m_line << ": " << data.m_expr;
        if (data.m_threw)
            out << "\n  threw: " << data.m_exception.c_str();
        else if (data.m_decomp.size())
            out << "\n  values: " << data.m_decomp.c_str();
        const int contexts = get_num_active_contexts();
        for (int i = 0; i < contexts; ++i) {
            out << "\n  ";
            get_active_contexts()[i]->stringify(&out);
        }
        current_.output += out.str() + "\n";
    }

    void test_case_exception(const doctest::TestCaseException& e) override
    {
        current_.output += std::string("the test case threw: ") + e.error_string.c_str() + "\n";
    }

    void test_case_end(const doctest::CurrentTestCaseStats& stats) override
    {
        current_.passed = stats.testCaseSuccess;
        current_.checks = stats.numAssertsCurrentTest;
        current_.failed_checks = stats.numAssertsFailedCurrentTest;
        results_.push_back(current_);
    }

    void test_run_end(const doctest::TestRunStats&) override
    {
        const char* path = std::getenv("TINYAMP_LAB_RESULTS");
        if (!path || !*path) return;
        // Written next to the target and renamed over it: a reader never sees half a file.
        const std::string temporary = std::string(path) + ".tmp";
        {
            std::ofstream out(temporary);
            out << "{\"test_cases\": [\n";
            for (std::size_t i = 0; i < results_.size(); ++i) {
                const CaseResult& r = results_[i];
                out << "  {\"name\": " << json_string(r.name) << ", \"passed\": " << (r.passed ? "true" : "false")
                    << ", \"checks\": " << r.checks << ", \"failed_checks\": " << r.failed_checks
                    << ", \"output\": " << json_string(r.output) << "}" << (i + 1 < results_.size() ? "," : "") << "\n";
            }
            out << "]}\n";
            if (!out) {
                std::fprintf(stderr, "lab: could not write the results to %s\n", temporary.c_str());
                return;
            }
        }
        if (std::rename(temporary.c_str(), path) != 0) std::fprintf(stderr, "lab: could not write the results to %s\n", path);
    }

private:
    CaseResult current_;
    std::vector<CaseResult> results_;
};

}  // namespace

DOCTEST_REGISTER_LISTENER("lab_results", 1, LabResultsListener);

#ifdef TINYAMP_LAB_ON_TWO_PROCESSES
#include "lessons/support/two_processes.h"
#include "tinyamp/distributed/process_group.h"

int main(int argc, char** argv)
{
    // A check left hanging by a rank that skipped a collective ends the job after 30 s, saying so.
    return tinyamp::lesson::main_on_two_processes(argc, argv, 30, [&] {
        if (tinyamp::distributed::get_rank() != 0) unsetenv("TINYAMP_LAB_RESULTS");  // rank 0 writes them
        doctest::Context context(argc, argv);
        return context.run();
    });
}
#endif
