#include "bench/gemm_phases.h"

#include <chrono>
#include <thread>

namespace tinyamp::bench::phases {
namespace {

std::thread::id calling_thread;

}  // namespace

std::array<ThreadRecord, 2>& records()
{
    static std::array<ThreadRecord, 2> all;
    return all;
}

void set_calling_thread() { calling_thread = std::this_thread::get_id(); }

ThreadRecord& this_thread_record() { return records()[std::this_thread::get_id() == calling_thread ? 0 : 1]; }

double ticks_per_us()
{
    static const double measured = [] {
        const auto start = std::chrono::steady_clock::now();
        const std::uint64_t first = ticks();
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
        return double(ticks() - first) / us;
    }();
    return measured;
}

}  // namespace tinyamp::bench::phases
