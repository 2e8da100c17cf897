#pragma once
// Waiting for a nonblocking MPI call with the group's timeout (process_group.h): what every
// collective of this floor does instead of a blocking MPI call that could wait forever.
// Internal to tinyamp/distributed/.

#include <string>

#include <mpi.h>

namespace tinyamp::distributed::detail {

/// Polls `request` until it completes. Past timeout_seconds(), prints that this rank waited that
/// long for `what` (say which collective: "all_reduce of 1000 bf16 elements") and ends the job
/// with MPI_Abort: the other processes cannot be told apart from a stopped one, and a job that
/// waits forever is worse than one that stops and says why.
void wait_or_abort(MPI_Request& request, const std::string& what);

/// Error(state) unless init_process_group ran: `what` names the call ("all_reduce").
void check_initialized(const char* what);

}  // namespace tinyamp::distributed::detail
