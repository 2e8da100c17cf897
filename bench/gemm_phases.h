#pragma once
// Where one product's time goes, thread by thread (the tuning tools' --phases): a tier's kernel
// wrapped so that each thread records when its range starts and ends (gemm_blocked.h calls
// begin_range() and end_range() around its packing, kernel calls and epilogue) and how many TSC
// cycles its kernel calls take. What the range holds besides the kernel calls is packing and the
// epilogue. Reading the TSC around each kernel call costs little but not nothing: on the lent VM
// the timed 512^3 bf16 product (256 kernel calls) took 2-7 % longer than the plain tier. At most
// two threads: the calling thread is slot 0, any helper slot 1.
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <thread>
#include <vector>

#include <tinyamp/core/dtype.h>

#include "bench/tuning_harness.h"

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace tinyamp::bench::phases {

struct ThreadRecord {
    std::uint64_t begin = 0, end = 0;  ///< TSC at begin_range() and end_range()
    std::uint64_t kernel_cycles = 0;   ///< in the kernel's run() / run_a_in_place() calls
    int kernel_calls = 0;
};

/// This product's records: [0] the calling thread, [1] a helper. Reset before each product.
std::array<ThreadRecord, 2>& records();
/// Marks the calling thread as slot 0 (call once, from the thread that calls the GEMM).
void set_calling_thread();
/// The calling thread's slot.
ThreadRecord& this_thread_record();
/// TSC ticks per microsecond, measured once against steady_clock over 100 ms.
double ticks_per_us();

inline std::uint64_t ticks()
{
#if defined(__x86_64__)
    return __rdtsc();
#else
    return 0;
#endif
}

/// What every timed kernel does: K with its range and its run() calls recorded.
template <class K>
struct TimedBase : K {
    static void begin_range()
    {
        ThreadRecord& record = this_thread_record();
        if (record.begin == 0) record.begin = ticks();  // a thread that runs two parts: from its first
        if constexpr (requires { K::begin_range(); }) K::begin_range();
    }
    static void end_range()
    {
        if constexpr (requires { K::end_range(); }) K::end_range();
        this_thread_record().end = ticks();
    }
    static void run(std::int64_t kc, const typename K::Packed* a, const typename K::Packed* b, float* c, std::int64_t ldc, bool first)
    {
        const std::uint64_t start = ticks();
        K::run(kc, a, b, c, ldc, first);
        count(start);
    }

protected:
    static void count(std::uint64_t start)
    {
        ThreadRecord& record = this_thread_record();
        record.kernel_cycles += ticks() - start;
        ++record.kernel_calls;
    }
};

/// Kernel K, timed. Everything else (MR, NC, rows_outer, ...) is K's. A kernel that reads op(A)
/// in place gets a timed run_a_in_place too; one that does not, none (gemm_blocked.h looks for
/// the member to decide).
template <class K, bool ReadsAInPlace = requires { &K::run_a_in_place; }>
struct Timed : TimedBase<K> {};

template <class K>
struct Timed<K, true> : TimedBase<K> {
    static void run_a_in_place(std::int64_t kc, const BFloat16* a, std::int64_t lda, const typename K::Packed* b, float* c,
                               std::int64_t ldc, bool first)
    {
        const std::uint64_t start = ticks();
        K::run_a_in_place(kc, a, lda, b, c, ldc, first);
        TimedBase<K>::count(start);
    }
};

/// For each of `rounds` rounds: the peer's median time per product (`peer` runs one; timed as
/// the tuning tables time it, tuning::time_calls), then
/// `timed_gemm` (one product with a Timed kernel) 20 times: the median product, and for each
/// thread its range, the kernel calls in it and the rest (packing, epilogue), and how many kernel
/// calls it made (a helper that woke too late makes none: the calling thread ran both parts, and
/// its range spans both). One line per round.
template <class Peer, class TimedGemm>
void print_phases(const char* peer_name, long long n, int threads, int rounds, Peer&& peer, TimedGemm&& timed_gemm)
{
    using tuning::median;
    set_calling_thread();
    const double flop = 2.0 * double(n) * double(n) * double(n);
    std::printf("\nN = %lld, %d thread(s), microseconds (median of 20 products): range = a thread's begin_range() to end_range();\n"
                "kernel = its kernel calls; rest = range - kernel (packing, epilogue)\n",
                n, threads);
    for (int round = 0; round < rounds; ++round) {
        std::vector<double> total;
        std::array<std::vector<double>, 2> range, kernel, calls;
        const double peer_us = tuning::time_calls(peer, 20) * 1e6;
        // OpenBLAS's and OpenMP's threads spin on after a call: on two cores they would take the
        // core tinyamp's helper needs.
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        for (int i = 0; i < 22; ++i) {
            records().fill(ThreadRecord{});
            const std::uint64_t start = ticks();
            timed_gemm();
            const double us = double(ticks() - start) / ticks_per_us();
            if (i < 2) continue;  // warm-up
            total.push_back(us);
            for (int t = 0; t < 2; ++t) {
                calls[t].push_back(records()[t].kernel_calls);
                range[t].push_back(double(records()[t].end - records()[t].begin) / ticks_per_us());
                kernel[t].push_back(double(records()[t].kernel_cycles) / ticks_per_us());
            }
        }
        std::printf("  round %d: %s %.0f (%.0f GFLOP/s) | tinyamp %.0f (%.0f GFLOP/s)", round, peer_name, peer_us, flop / peer_us / 1e3,
                    median(total), flop / median(total) / 1e3);
        for (int t = 0; t < threads && t < 2; ++t)
            std::printf(" | thread %d: range %.0f kernel %.0f rest %.0f (%.0f calls)", t, median(range[t]), median(kernel[t]),
                        median(range[t]) - median(kernel[t]), median(calls[t]));
        std::printf("\n");
        std::fflush(stdout);
    }
}

}  // namespace tinyamp::bench::phases
