// A job whose rank 1 skips a collective that rank 0 makes: rank 0 must stop after the group's
// timeout (TINYAMP_DIST_TIMEOUT, set short by CTest), saying what it waited for, and end the job
// (MPI_Abort) instead of hanging. CTest passes the test on that message.
#include <chrono>
#include <thread>

#include <tinyamp/tinyamp.h>

#include "tinyamp/distributed/collectives.h"
#include "tinyamp/distributed/process_group.h"
#include "tests/distributed/ranks_started.h"

int main(int argc, char** argv)
{
    namespace dist = tinyamp::distributed;
    dist::init_process_group(argc, argv);
    tinyamp::test::mark_rank_started();
    if (dist::get_rank() == 0) {
        dist::all_reduce(tinyamp::ones({8}));
    } else {
        std::this_thread::sleep_for(std::chrono::seconds(30));  // "busy elsewhere": longer than the timeout
    }
    dist::destroy_process_group();
    return 0;
}
