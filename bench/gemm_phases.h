#pragma once
// Where one product's time goes, thread by thread (the tuning tools' --phases): a tier's kernel
// wrapped so that each thread records when its range starts and ends (gemm_blocked.h calls
// begin_range() and end_range() around its packing, kernel calls and epilogue), how many TSC
// cycles its kernel calls take, and where the gaps between them fall. gemm_blocked.h's loop nest
// makes the gaps readable without touching the library:
//   - before the first call: the range's setup and the packing of the first blocks (op(B)'s
//     first NC columns, op(A)'s rows when it is packed);
//   - before the first call of each later block of C (its first tile, k block 0: the call that
//     writes the sum buffer's first value with `first` set, or, when the kernel sums straight
//     into C, the first call with `first` set after one without): the previous block's epilogue,
//     and the packing for the new block. (Summing into C over a single k block, every call has
//     `first` set: its blocks are not told apart, and their gaps count as within blocks);
//   - after the last call: the last block's epilogue;
//   - all other gaps: the loop nest between two calls of one block, and the timer itself.
// Reading the TSC around each kernel call costs little but not nothing: on the lent VM the
// timed 512^3 bf16 product (256 kernel calls) took 2-7 % longer than the plain tier. At most
// two threads: the calling thread is slot 0, any helper slot 1.
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <thread>
#include <vector>

#include <tinyamp/values/dtype.h>

#include "bench/tuning_harness.h"
#include "kernels/cpu/gemm_blocked.h"

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace tinyamp::bench::phases {

struct ThreadRecord {
    std::uint64_t begin = 0, end = 0;  ///< TSC at begin_range() and end_range()
    std::uint64_t part_begin = 0;      ///< TSC at this part's begin_range() (a thread may run two parts)
    std::uint64_t kernel_cycles = 0;   ///< in the kernel's run() / run_a_in_place() calls
    int kernel_calls = 0;
    // The gaps between the calls (the header says what each holds).
    std::uint64_t before_first = 0;    ///< begin_range() to the first call
    std::uint64_t between_blocks = 0;  ///< before the first call of each later block of C
    std::uint64_t within_blocks = 0;   ///< before every other call
    std::uint64_t after_last = 0;      ///< the last call to end_range()
    int blocks = 0;                    ///< blocks of C (calls that start one)
    std::uint64_t last_call_end = 0;
    const float* block_start = nullptr;  ///< the sum buffer's first value: where every block's first tile goes
    bool last_call_first = false;        ///< whether the last call had `first` set (k block 0)
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
        record.part_begin = ticks();
        if (record.begin == 0) record.begin = record.part_begin;  // a thread that runs two parts: from its first
        if constexpr (requires { K::begin_range(); }) K::begin_range();
    }
    static void end_range()
    {
        if constexpr (requires { K::end_range(); }) K::end_range();
        ThreadRecord& record = this_thread_record();
        record.end = ticks();
        if (record.kernel_calls > 0) record.after_last += record.end - record.last_call_end;
    }
    static void run(std::int64_t kc, const typename K::Packed* a, const typename K::Packed* b, float* c, std::int64_t ldc, bool first)
    {
        const std::uint64_t start = ticks();
        K::run(kc, a, b, c, ldc, first);
        count(start, c, first);
    }

protected:
    /// Books the call that began at `start` and the gap before it.
    static void count(std::uint64_t start, const float* c, bool first)
    {
        const std::uint64_t end = ticks();
        ThreadRecord& record = this_thread_record();
        if (record.kernel_calls == 0 || record.last_call_end < record.part_begin) {  // the part's first call
            record.before_first += start - record.part_begin;
            record.block_start = c;
            ++record.blocks;
        } else if (first && (c == record.block_start || !record.last_call_first)) {
            record.between_blocks += start - record.last_call_end;
            ++record.blocks;
        } else {
            record.within_blocks += start - record.last_call_end;
        }
        record.kernel_cycles += end - start;
        record.last_call_end = end;
        record.last_call_first = first;
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
    static void run_a_in_place(std::int64_t kc, const kernels::cpu::blocked::in_place_input_t<K>* a, std::int64_t lda,
                               const typename K::Packed* b, float* c, std::int64_t ldc, bool first)
    {
        const std::uint64_t start = ticks();
        K::run_a_in_place(kc, a, lda, b, c, ldc, first);
        TimedBase<K>::count(start, c, first);
    }
};

/// One thread's medians over the products of a round, in microseconds.
struct ThreadPhases {
    std::vector<double> range, kernel, before_first, between_blocks, within_blocks, after_last, calls, blocks;

    void add(const ThreadRecord& record, double ticks_per_microsecond)
    {
        auto us = [&](std::uint64_t cycles) { return double(cycles) / ticks_per_microsecond; };
        range.push_back(us(record.end - record.begin));
        kernel.push_back(us(record.kernel_cycles));
        before_first.push_back(us(record.before_first));
        between_blocks.push_back(us(record.between_blocks));
        within_blocks.push_back(us(record.within_blocks));
        after_last.push_back(us(record.after_last));
        calls.push_back(record.kernel_calls);
        blocks.push_back(record.blocks);
    }
    void print(int thread) const
    {
        using tuning::median;
        std::printf("    thread %d: range %.0f = kernel %.0f + before the first call %.0f + between blocks %.0f (%.0f blocks)"
                    " + within blocks %.0f + after the last call %.0f; %.0f calls\n",
                    thread, median(range), median(kernel), median(before_first), median(between_blocks), median(blocks),
                    median(within_blocks), median(after_last), median(calls));
    }
};

/// For each of `rounds` rounds: the peer's median time per product (`peer` runs one; timed as
/// the tuning tables time it, tuning::time_calls), then `timed_gemm` (one product with a Timed
/// kernel) 20 times: the median product, and for each thread the medians of its range, its
/// kernel calls and the gaps between them (the header says what each holds), and how many
/// kernel calls it made. A helper that woke too late makes none: the calling thread ran both
/// parts, and its range spans both and the moment between them, which no gap counts.
template <class Peer, class TimedGemm>
void print_phases(const char* peer_name, long long n, int threads, int rounds, Peer&& peer, TimedGemm&& timed_gemm)
{
    using tuning::median;
    set_calling_thread();
    const double flop = 2.0 * double(n) * double(n) * double(n);
    std::printf("\nN = %lld, %d thread(s), microseconds (median of 20 products). Per thread: its range (begin_range() to\n"
                "end_range()) = its kernel calls + the gaps: before the first call (setup, the first packing), between\n"
                "blocks of C (an epilogue, the next packing), within blocks (the loop, the timer), after the last call\n"
                "(the last epilogue)\n",
                n, threads);
    for (int round = 0; round < rounds; ++round) {
        std::vector<double> total;
        std::array<ThreadPhases, 2> per_thread;
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
            for (int t = 0; t < 2; ++t) per_thread[t].add(records()[t], ticks_per_us());
        }
        std::printf("  round %d: %s %.0f (%.0f GFLOP/s) | tinyamp %.0f (%.0f GFLOP/s)\n", round, peer_name, peer_us,
                    flop / peer_us / 1e3, median(total), flop / median(total) / 1e3);
        for (int t = 0; t < threads && t < 2; ++t) per_thread[t].print(t);
        std::fflush(stdout);
    }
}

}  // namespace tinyamp::bench::phases
