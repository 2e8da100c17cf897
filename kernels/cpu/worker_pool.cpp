#include "kernels/cpu/worker_pool.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <pthread.h>
#include <system_error>
#include <thread>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace tinyamp::kernels::cpu {

void cpu_relax()
{
#if defined(__x86_64__)
    _mm_pause();
#else
    std::this_thread::yield();
#endif
}

namespace {

// Up to about a millisecond of spinning (a pause takes some 40 to 140 cycles, by CPU).
constexpr int kSpinRounds = 20000;

// Set in the child of a fork(): it has none of its parent's helper threads.
bool forked_child = false;

class WorkerPool {
public:
    // Never destroyed: helpers may still be spinning while the process exits, so the pool they
    // read must outlive every static destructor (the process's exit ends the threads).
    static WorkerPool& instance()
    {
        static WorkerPool* const pool = [] {
            pthread_atfork(nullptr, nullptr, [] { forked_child = true; });
            return new WorkerPool;
        }();
        return *pool;
    }

    void run(int parts, void (*fn)(void*, int), void* context)
    {
        // Busy (another thread's job), a forked child, or a job the caller can do alone: run it
        // all here.
        std::unique_lock busy(run_mutex_, std::try_to_lock);
        if (parts < 2 || !busy.owns_lock() || forked_child || !start_helpers(parts - 1)) {
            for (int part = 0; part < parts; ++part) fn(context, part);
            return;
        }
        std::uint32_t job = 0;
        {
            std::lock_guard lock(wake_mutex_);
            fn_ = fn;
            context_ = context;
            parts_ = parts;
            done_.store(0, std::memory_order_relaxed);
            job = std::uint32_t(generation_.fetch_add(1, std::memory_order_release) + 1);
            next_part_.store(std::uint64_t(job) << 32 | 1u, std::memory_order_release);  // part 0 is ours
        }
        wake_.notify_all();
        // Part 0, then whatever part no helper has taken yet: a helper that is slow to wake (one
        // that went to sleep) finds nothing left, and this thread does not wait for it.
        int finished_here = 0;
        for (int part = 0; part >= 0; part = claim(job, parts)) {
            fn(context, part);
            ++finished_here;
        }
        done_.fetch_add(finished_here, std::memory_order_acq_rel);
        while (done_.load(std::memory_order_acquire) != parts) cpu_relax();  // the helpers' parts
    }

    int helpers() const
    {
        std::lock_guard lock(wake_mutex_);
        return helpers_;
    }

private:
    WorkerPool() = default;

    // Takes the next part of job `job` for this thread: its number, or -1 when every part is
    // taken or that job is over (a newer one has started). The job's number travels with the
    // counter, so a helper holding an old job's fields never runs a part with them.
    int claim(std::uint32_t job, int parts)
    {
        std::uint64_t value = next_part_.load(std::memory_order_acquire);
        for (;;) {
            const int part = int(value & 0xFFFFFFFFu);
            if (std::uint32_t(value >> 32) != job || part >= parts) return -1;
            if (next_part_.compare_exchange_weak(value, value + 1, std::memory_order_acq_rel)) return part;
        }
    }

    // Starts helpers up to `wanted` (at most cores - 1). False if there is none to use.
    bool start_helpers(int wanted)
    {
        static const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
        wanted = std::min(wanted, cores - 1);
        std::lock_guard lock(wake_mutex_);
        // The generation only changes under wake_mutex_: a new helper waits for the next one.
        const std::uint64_t current = generation_.load(std::memory_order_relaxed);
        while (helpers_ < wanted) {
            try {
                std::thread([this, current] { helper_loop(current); }).detach();
                ++helpers_;
            } catch (const std::system_error&) {  // the system has no thread to give
                break;
            }
        }
        return helpers_ > 0;
    }

    // A helper takes parts of every job after generation `seen`, as long as there are any left.
    void helper_loop(std::uint64_t seen)
    {
        for (;;) {
            std::uint64_t now = seen;
            for (int round = 0; round < kSpinRounds && now == seen; ++round) {
                cpu_relax();
                now = generation_.load(std::memory_order_acquire);
            }
            if (now == seen) {
                std::unique_lock lock(wake_mutex_);
                wake_.wait(lock, [&] { return generation_.load(std::memory_order_acquire) != seen; });
                now = generation_.load(std::memory_order_acquire);
            }
            seen = now;
            void (*fn)(void*, int) = nullptr;
            void* context = nullptr;
            int parts = 0;
            {
                std::lock_guard lock(wake_mutex_);  // the fields and their generation, together
                fn = fn_;
                context = context_;
                parts = parts_;
                seen = generation_.load(std::memory_order_acquire);
            }
            for (int part; (part = claim(std::uint32_t(seen), parts)) >= 0;) {
                fn(context, part);
                done_.fetch_add(1, std::memory_order_acq_rel);
            }
        }
    }

    std::mutex run_mutex_;           // held by the caller whose job is running
    mutable std::mutex wake_mutex_;  // guards the job's fields and helpers_
    std::condition_variable wake_;
    std::atomic<std::uint64_t> generation_{0};  // one more per job: what helpers wait for
    std::atomic<std::uint64_t> next_part_{0};   // (the job's generation, 32 bits) << 32 | the next part to take
    std::atomic<int> done_{0};                  // parts of this job that have returned
    void (*fn_)(void*, int) = nullptr;
    void* context_ = nullptr;
    int parts_ = 0;
    int helpers_ = 0;  // started (detached) helper threads
};

}  // namespace

void run_parts(int parts, void (*fn)(void* context, int part), void* context)
{
    WorkerPool::instance().run(parts, fn, context);
}

int worker_pool_helpers() { return WorkerPool::instance().helpers(); }

}  // namespace tinyamp::kernels::cpu
