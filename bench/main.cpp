// tinyamp-bench: every benchmark of tinyamp in one run, then one summary (docs/benchmarks.md).
//
//     scripts/bench.sh                                   installs what is missing, builds, runs this
//     build-bench/bench/tinyamp-bench --benchmark_filter=gemm/.*/n:1024   a subset
//     build-bench/bench/tinyamp-bench --benchmark_out=raw.json            also every repetition as JSON
//     build-bench/bench/tinyamp-bench --pytorch-results=FILE              also ratios against PyTorch
//                                     (FILE: the JSON of bench/pytorch_peer.py; scripts/bench.sh makes it)
//
// Google Benchmark times the loops (its --benchmark_* flags work); the tables print medians.
// Exit status: 0 after a run (missed targets are reported, not failures), 1 for bad flags or an
// unreadable PyTorch file, 2 when a library's GEMM gave a wrong result (then nothing is timed).

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include <tinyamp/tinyamp.h>

#include "bench/digits_epoch_bench.h"
#include "bench/dispatch_bench.h"
#include "bench/gpt_step_bench.h"
#include "bench/gemm_bench.h"
#include "bench/gemm_check.h"
#include "bench/gemm_peers.h"
#include "bench/machine_header.h"
#include "bench/pytorch_results.h"
#include "bench/result_collector.h"
#include "bench/scaled_mm_bench.h"
#include "bench/summary_tables.h"
#include "kernels/cpu/cpu_features.h"

namespace {

// Takes --pytorch-results=FILE out of argv (Google Benchmark rejects flags it does not know) and
// returns FILE, or "" when the flag is absent.
std::string take_pytorch_results_flag(int& argc, char** argv)
{
    const std::string flag = "--pytorch-results=";
    std::string file;
    int kept = 1;
    for (int i = 1; i < argc; ++i) {
        if (std::strncmp(argv[i], flag.c_str(), flag.size()) == 0)
            file = argv[i] + flag.size();
        else
            argv[kept++] = argv[i];
    }
    argc = kept;
    argv[argc] = nullptr;
    return file;
}

}  // namespace

int main(int argc, char** argv)
{
    using namespace tinyamp;
    bench::give_openblas_its_avx512_kernels(argv);  // before Initialize, which removes the flags it reads from argv
    const std::string pytorch_file = take_pytorch_results_flag(argc, argv);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;

    std::optional<bench::PytorchResults> pytorch;
    if (!pytorch_file.empty()) {
        try {
            pytorch = bench::load_pytorch_results(pytorch_file);
        } catch (const std::runtime_error& e) {
            std::cerr << "tinyamp-bench: " << e.what() << '\n';
            return 1;
        }
    }

    const bench::MachineInfo machine = bench::describe_machine();
    std::cout << "tinyamp-bench (tinyamp " << TINYAMP_VERSION << ")\n";
    bench::print_machine_header(std::cout, machine);
    std::cout << "  peers: " << bench::openblas_description() << "; " << bench::onednn_description() << "\n  "
              << (pytorch ? pytorch->description() + ", measured by bench/pytorch_peer.py just before: " + pytorch->file
                          : std::string("PyTorch: not measured (scripts/bench.sh runs bench/pytorch_peer.py where torch is installed)"))
              << "\n\n";
    if (!bench::check_gemm_results(std::cout)) {
        std::cout << "A GEMM gave a wrong result: not timing it. Nothing was benchmarked.\n";
        return 2;
    }

    // The check ran OpenBLAS and oneDNN: let their threads stop spinning (bench/library_switch.h)
    // before the first benchmark, which may be a tinyamp one when --benchmark_filter is given.
    std::this_thread::sleep_for(std::chrono::milliseconds(300));

    bench::register_gemm_benchmarks();
    bench::register_scaled_mm_benchmarks();
    bench::register_dispatch_benchmarks();
    bench::register_digits_epoch_benchmarks();
    bench::register_gpt_step_benchmarks();
    std::cout << "\nRunning (a progress line per benchmark; about 3 minutes on 2 cores)...\n";
    bench::ResultCollector results(std::cout);
    benchmark::RunSpecifiedBenchmarks(&results);
    benchmark::Shutdown();

    bench::print_summary(std::cout, results, machine, pytorch ? &*pytorch : nullptr);
    bench::print_scaled_mm_table(std::cout, results);
    bench::print_gpt_step_breakdown(std::cout);
    return 0;
}
