#include "tinyamp/support/parallel.h"

#include <atomic>

#include "tinyamp/support/error.h"

namespace tinyamp {
namespace {
std::atomic<int> max_threads{2};
}

void set_num_threads(int threads)
{
    TINYAMP_CHECK(threads >= 1, value, "set_num_threads expects a positive number of threads, got ", threads);
    max_threads.store(threads, std::memory_order_relaxed);
}

int get_num_threads() { return max_threads.load(std::memory_order_relaxed); }

}  // namespace tinyamp
