// kernels/cpu/worker_pool: every part of every job runs exactly once, whoever runs it, also when
// several threads start jobs at once (the pool is busy, so they run their parts themselves).
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <thread>
#include <vector>

#include "kernels/cpu/worker_pool.h"

namespace cpu = tinyamp::kernels::cpu;

TEST_CASE("worker pool threads: each part of a job runs exactly once, for 1 to 9 parts")
{
    for (int parts = 1; parts <= 9; ++parts) {
        INFO("parts " << parts);
        std::vector<std::atomic<int>> runs(static_cast<std::size_t>(parts));
        cpu::run_parts(parts, [&](int part) { runs[std::size_t(part)].fetch_add(1); });
        for (int part = 0; part < parts; ++part) CHECK(runs[std::size_t(part)].load() == 1);
    }
    const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
    CHECK(cpu::worker_pool_helpers() <= std::max(0, cores - 1));  // never more helpers than other cores
}

TEST_CASE("worker pool threads: 20000 back-to-back jobs each see every part (the spinning hand-over)")
{
    std::int64_t total = 0;
    for (int job = 0; job < 20000; ++job) {
        std::int64_t sums[2] = {0, 0};
        cpu::run_parts(2, [&](int part) { sums[part] = job + part; });  // each part writes only its own slot
        total += sums[0] + sums[1];
    }
    CHECK(total == 2 * (std::int64_t(19999) * 20000 / 2) + 20000);
}

TEST_CASE("worker pool threads: four threads starting jobs at once all finish with every part run once")
{
    std::atomic<int> wrong{0};
    std::vector<std::thread> callers;
    for (int t = 0; t < 4; ++t)
        callers.emplace_back([&] {
            for (int job = 0; job < 500; ++job) {
                std::atomic<int> runs[3] = {0, 0, 0};
                cpu::run_parts(3, [&](int part) { runs[part].fetch_add(1); });
                for (const auto& r : runs)
                    if (r.load() != 1) wrong.fetch_add(1);
            }
        });
    for (std::thread& caller : callers) caller.join();
    CHECK(wrong.load() == 0);
}

TEST_CASE("worker pool threads: a forked child, which has none of the helper threads, still runs every part")
{
    cpu::run_parts(2, [](int) {});  // the parent's helper exists now
    std::fflush(nullptr);
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        int runs[2] = {0, 0};
        cpu::run_parts(2, [&](int part) { ++runs[part]; });  // would wait forever for a helper
        _exit(runs[0] == 1 && runs[1] == 1 ? 0 : 1);
    }
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
}
