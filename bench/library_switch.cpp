#include "bench/library_switch.h"

#include <chrono>
#include <thread>

namespace tinyamp::bench {

void wait_when_library_changes(Library next)
{
    static bool first = true;  // the benchmarks run one after another, on one thread
    static Library last = Library::tinyamp;
    if (!first && next != last) std::this_thread::sleep_for(std::chrono::milliseconds(300));
    first = false;
    last = next;
}

}  // namespace tinyamp::bench
