#pragma once
// For tests/distributed/run_mpi_test.sh: each rank marks that mpiexec started it, in the file that
// TINYAMP_RANKS_STARTED_MARK names, so that a job mpiexec could not start at all (MPI cannot run
// on this machine) is reported as skipped, and a job whose ranks ran and failed as failed.
#include <cstdlib>
#include <fstream>

namespace tinyamp::test {

inline void mark_rank_started()
{
    if (const char* mark = std::getenv("TINYAMP_RANKS_STARTED_MARK")) std::ofstream{mark};
}

}  // namespace tinyamp::test
