#pragma once
/// \file
/// The processes that train together, over MPI: torch.distributed's init_process_group,
/// get_rank, get_world_size, barrier and destroy_process_group.
///
///     mpirun -np 2 ./train          (as root: mpirun --allow-run-as-root -np 2 ./train)
///
///     int main(int argc, char** argv) {
///         tinyamp::distributed::init_process_group(argc, argv);
///         const int rank = tinyamp::distributed::get_rank();         // 0 or 1
///         ...
///         tinyamp::distributed::destroy_process_group();
///     }
///
/// Every process of the job runs the same program; MPI (Open MPI here, the engine HPC clusters run)
/// starts them and carries their messages, on one machine or many. A program started without
/// mpirun is a group of one. A collective that some process never joins does not hang the others:
/// after the group's timeout (default 60 s, `ProcessGroupOptions::timeout_seconds` or the
/// TINYAMP_DIST_TIMEOUT environment variable) the waiting process prints what it waited for and
/// ends the whole job (MPI_Abort), as NCCL's watchdog does.
///
/// Built only when CMake finds MPI (target tinyamp::distributed); the rest of tinyamp never needs it.

#include <string>

namespace tinyamp::distributed {

/// What init_process_group may be told.
struct ProcessGroupOptions {
    double timeout_seconds = 60;  ///< how long a collective waits for the other processes
};

/// Joins the job's processes (MPI_Init; MPI_Init_thread with MPI_THREAD_FUNNELED: only the
/// calling thread talks to MPI). Call once, before any collective; a second call is an Error(state).
void init_process_group(int& argc, char**& argv, ProcessGroupOptions options = {});
/// Leaves the group (MPI_Finalize). Every process must call it; afterwards no collective may run.
void destroy_process_group();
/// Whether init_process_group ran and destroy_process_group has not.
bool is_initialized();

/// This process's number in the group, 0 .. get_world_size() - 1.
int get_rank();
/// How many processes the group has.
int get_world_size();
/// Waits until every process has reached it (within the timeout).
void barrier();

/// The timeout in force (seconds).
double timeout_seconds();
/// "rank 1 of 2": how messages name this process.
std::string rank_name();

}  // namespace tinyamp::distributed
