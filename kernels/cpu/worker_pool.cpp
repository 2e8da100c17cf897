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
namespace {

// Up to about a millisecond of spinning (a pause takes some 40 to 140 cycles, by CPU).
constexpr int kSpinRounds = 20000;

void cpu_relax()
{
#if defined(__x86_64__)
    _mm_pause();
#else
    std::this_thread::yield();
#endif
}

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
        const int helpers = helpers_;  // fixed while this caller holds run_mutex_
        {
            std::lock_guard lock(wake_mutex_);
            fn_ = fn;
            context_ = context;
            parts_ = parts;
            remaining_.store(helpers, std::memory_order_relaxed);
            generation_.fetch_add(1, std::memory_order_release);
        }
        wake_.notify_all();
        fn(context, 0);
        // Parts the helpers cannot take (more parts than helpers + 1) run here too.
        for (int part = helpers + 1; part < parts; ++part) fn(context, part);
        while (remaining_.load(std::memory_order_acquire) != 0) cpu_relax();
    }

    int helpers() const
    {
        std::lock_guard lock(wake_mutex_);
        return helpers_;
    }

private:
    WorkerPool() = default;

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
                const int part = helpers_ + 1;
                std::thread([this, part, current] { helper_loop(part, current); }).detach();
                ++helpers_;
            } catch (const std::system_error&) {  // the system has no thread to give
                break;
            }
        }
        return helpers_ > 0;
    }

    // Helper `part` (1, 2, ...) runs that part of every job, starting after generation `seen`.
    void helper_loop(int part, std::uint64_t seen)
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
                std::lock_guard lock(wake_mutex_);
                fn = fn_;
                context = context_;
                parts = parts_;
            }
            if (part < parts) fn(context, part);
            remaining_.fetch_sub(1, std::memory_order_release);
        }
    }

    std::mutex run_mutex_;           // held by the caller whose job is running
    mutable std::mutex wake_mutex_;  // guards the job's fields and helpers_
    std::condition_variable wake_;
    std::atomic<std::uint64_t> generation_{0};  // one more per job: what helpers wait for
    std::atomic<int> remaining_{0};             // helpers that have not finished this job
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
