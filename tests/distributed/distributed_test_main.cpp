// main() of the tests run under mpirun (tests/CMakeLists.txt): every rank joins the process group,
// runs the same doctest cases (collectives need every rank to make the same calls in the same
// order), and leaves it. A rank's failed check fails its exit status, and so mpirun's.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "tinyamp/distributed/process_group.h"
#include "tests/distributed/ranks_started.h"

int main(int argc, char** argv)
{
    tinyamp::distributed::init_process_group(argc, argv, {.timeout_seconds = 30});
    tinyamp::test::mark_rank_started();
    doctest::Context context(argc, argv);
    const int failed = context.run();
    tinyamp::distributed::destroy_process_group();
    return failed;
}
