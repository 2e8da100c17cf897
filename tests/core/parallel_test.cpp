// set_num_threads / get_num_threads (tinyamp/support/parallel.h), and that the fast GEMM honours
// them: it never uses more threads than allowed, and its bits do not depend on how many it uses.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <thread>

#include <tinyamp/tinyamp.h>

#include "kernels/cpu/gemm.h"
#include "tests/support/expect_error.h"
#include "tests/support/gemm_matrices.h"

using namespace tinyamp;
namespace cpu = kernels::cpu;

namespace {

// Restores the thread limit a test changed, even when a check throws.
struct ThreadLimitGuard {
    int saved = get_num_threads();
    ~ThreadLimitGuard() { set_num_threads(saved); }
};

}  // namespace

TEST_CASE("set_num_threads sets the limit get_num_threads reads, and rejects less than one thread")
{
    ThreadLimitGuard guard;
    set_num_threads(1);
    CHECK(get_num_threads() == 1);
    set_num_threads(3);
    CHECK(get_num_threads() == 3);
    for (int bad : {0, -2}) {
        const std::string message = test::error_message([&] { set_num_threads(bad); }, ErrorKind::value);
        CHECK(message.find("positive number of threads") != std::string::npos);
        CHECK(message.find(std::to_string(bad)) != std::string::npos);
    }
    CHECK(get_num_threads() == 3);  // a rejected value changes nothing
}

TEST_CASE("the fast gemm uses at most get_num_threads threads, and only where they pay")
{
    ThreadLimitGuard guard;
    const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
    set_num_threads(1);
    CHECK(cpu::gemm_thread_count(1024, 1024, 1024) == 1);
    set_num_threads(2);
    CHECK(cpu::gemm_thread_count(1024, 1024, 1024) == std::min(2, cores));
    CHECK(cpu::gemm_thread_count(64, 64, 64) == 1);      // far too small to repay a thread
    CHECK(cpu::gemm_thread_count(64, 128, 64) == 1);     // 2^19 multiply-adds: one thread's worth
    CHECK(cpu::gemm_thread_count(64, 256, 64) == std::min(2, cores));  // 2^20: a digits MLP layer
    CHECK(cpu::gemm_thread_count(512, 512, 512) == std::min(2, cores));
    set_num_threads(64);
    CHECK(cpu::gemm_thread_count(4096, 4096, 4096) == cores);  // never more threads than cores
}

TEST_CASE("gemm gives the same bits under set_num_threads(1) and set_num_threads(2)")
{
    ThreadLimitGuard guard;
    // 2^27 multiply-adds: enough for two threads where the CPU has two cores.
    const auto g =
        test::GemmCase<float, float>::make(cpu::Transpose::no, cpu::Transpose::yes, 512, 512, 512, 1.0, 0.0, std::nullopt, 11, 0);
    auto run = [&] { return g.run([](auto... args) { cpu::gemm<float, float>(args...); }); };
    set_num_threads(1);
    const auto one = run();
    set_num_threads(2);
    const auto two = run();
    CHECK(std::memcmp(one.data.data(), two.data.data(), one.data.size() * sizeof(float)) == 0);
}
