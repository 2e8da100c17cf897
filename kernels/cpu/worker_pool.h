#pragma once
// Runs the parts of one job on this thread and on helper threads that stay alive between jobs.
//
// Why a pool: the training steps of a small model call GEMMs of a few tens of microseconds, one
// after another. Starting a std::thread per GEMM costs more than half of that, and so does waking
// a sleeping thread through the kernel on a virtual machine. So helpers *spin* for a while after
// each job (checking an atomic counter with the CPU's pause hint), and only then sleep on a
// condition variable: back-to-back jobs are handed over in well under a microsecond, and an idle
// process stops using the second core after about a millisecond (kSpinRounds).
//
// One job at a time: a caller that finds the pool busy (another thread's GEMM) runs all of its
// parts itself, so callers never wait for each other. The function must not throw.

#include <cstdint>
#include <type_traits>

namespace tinyamp::kernels::cpu {

/// Calls fn(context, part) for part = 0 .. parts - 1 and returns when all have returned. Part 0
/// runs on the calling thread; each of the others on whichever thread takes it first: one of the
/// pool's helpers (up to the number of cores - 1, created on first use), or the calling thread
/// once its part is done, so a helper that is slow to wake (it had gone to sleep) delays nothing.
/// All parts run on the calling thread when the pool is busy or has no helper.
void run_parts(int parts, void (*fn)(void* context, int part), void* context);

/// run_parts for a callable: run_parts(2, [&](int part) { ... }).
template <class Fn>
void run_parts(int parts, Fn&& fn)
{
    run_parts(parts, [](void* context, int part) { (*static_cast<std::remove_reference_t<Fn>*>(context))(part); }, &fn);
}

/// Elements a thread takes at least in elementwise work (PyTorch's grain size): the elementwise
/// ops, copies, conversions and optimizer steps on fewer run on the calling thread alone, where
/// waking a helper would cost more than it saves.
inline constexpr std::int64_t kElementwiseGrain = 32768;

/// Splits [0, count) into up to `threads` ranges of at least `min_per_range` elements each (one
/// range when count is smaller) and calls fn(first, last) for each through run_parts: the one way
/// the elementwise, attention and LayerNorm kernels share out their work.
template <class Fn>
void run_ranges(std::int64_t count, std::int64_t min_per_range, int threads, Fn&& fn)
{
    const std::int64_t most = count / (min_per_range > 0 ? min_per_range : 1);
    const int parts = int(most < 1 ? 1 : most < threads ? most : threads);
    if (parts <= 1) {
        if (count > 0) fn(std::int64_t(0), count);
        return;
    }
    const std::int64_t step = (count + parts - 1) / parts;
    run_parts(parts, [&](int part) {
        const std::int64_t first = part * step < count ? part * step : count, last = first + step < count ? first + step : count;
        if (first < last) fn(first, last);
    });
}

/// How many helper threads the pool has started so far (tests and benchmarks read it).
int worker_pool_helpers();

/// One round of a spin-wait: the CPU's `pause` hint (x86), which lets the other hardware thread
/// of the core run and saves power, or a yield elsewhere.
void cpu_relax();

}  // namespace tinyamp::kernels::cpu
