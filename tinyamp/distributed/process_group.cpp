#include "tinyamp/distributed/process_group.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "tinyamp/distributed/half_reductions.h"
#include "tinyamp/distributed/mpi_waiting.h"
#include "tinyamp/support/error.h"

namespace tinyamp::distributed {
namespace {

struct GroupState {
    bool initialized = false;
    int rank = 0;
    int world_size = 1;
    double timeout_seconds = 60;
};

GroupState& state()
{
    static GroupState s;
    return s;
}

// TINYAMP_DIST_TIMEOUT, when set, wins over the options (a job's launcher can shorten it).
double timeout_from_environment(double fallback)
{
    const char* text = std::getenv("TINYAMP_DIST_TIMEOUT");
    if (text == nullptr || *text == '\0') return fallback;
    char* end = nullptr;
    const double seconds = std::strtod(text, &end);
    TINYAMP_CHECK(end != text && *end == '\0' && seconds > 0, value, "TINYAMP_DIST_TIMEOUT='", text,
                  "' is not a positive number of seconds; set it to, e.g., 30, or unset it for the default");
    return seconds;
}

}  // namespace

void init_process_group(int& argc, char**& argv, ProcessGroupOptions options)
{
    GroupState& s = state();
    TINYAMP_CHECK(!s.initialized, state, "init_process_group: the process group is already initialized; call it once per process");
    TINYAMP_CHECK(options.timeout_seconds > 0, value, "init_process_group: timeout_seconds must be positive, got ", options.timeout_seconds);
    const double timeout = timeout_from_environment(options.timeout_seconds);  // before MPI: a bad value leaves nothing half done
    int already = 0;
    MPI_Initialized(&already);
    TINYAMP_CHECK(!already, state, "init_process_group: MPI was initialized by someone else; let tinyamp initialize it");
    int provided = 0;
    TINYAMP_CHECK(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) == MPI_SUCCESS, state,
                  "init_process_group: MPI_Init_thread failed; start the program with mpirun (as root: mpirun --allow-run-as-root)");
    // Errors come back as return codes, which the collectives turn into messages, instead of
    // MPI's default of ending the job without saying where.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &s.world_size);
    s.timeout_seconds = timeout;
    s.initialized = true;
    detail::create_half_reductions();
}

void destroy_process_group()
{
    GroupState& s = state();
    TINYAMP_CHECK(s.initialized, state, "destroy_process_group: the process group is not initialized (call init_process_group first)");
    detail::free_half_reductions();
    MPI_Finalize();
    s.initialized = false;
}

bool is_initialized() { return state().initialized; }

int get_rank()
{
    detail::check_initialized("get_rank");
    return state().rank;
}

int get_world_size()
{
    detail::check_initialized("get_world_size");
    return state().world_size;
}

double timeout_seconds() { return state().timeout_seconds; }

std::string rank_name() { return "rank " + std::to_string(state().rank) + " of " + std::to_string(state().world_size); }

void barrier()
{
    detail::check_initialized("barrier");
    MPI_Request request;
    MPI_Ibarrier(MPI_COMM_WORLD, &request);
    detail::wait_or_abort(request, "barrier");
}

namespace detail {

void check_initialized(const char* what)
{
    TINYAMP_CHECK(state().initialized, state, what, ": the process group is not initialized; call distributed::init_process_group(argc, argv) first");
}

void wait_or_abort(MPI_Request& request, const std::string& what)
{
    using clock = std::chrono::steady_clock;
    const auto deadline = clock::now() + std::chrono::duration<double>(state().timeout_seconds);
    for (int spins = 0;; ++spins) {
        int done = 0;
        MPI_Test(&request, &done, MPI_STATUS_IGNORE);
        if (done) return;
        if (clock::now() > deadline) break;
        if (spins > 1000) std::this_thread::sleep_for(std::chrono::microseconds(50));  // a long wait: do not burn the core
    }
    std::fprintf(stderr,
                 "tinyamp.distributed: %s waited %g s for %s, and not every process joined it (one stopped, or is running a different "
                 "collective: every process must call the same collectives in the same order). Ending the job.\n",
                 rank_name().c_str(), state().timeout_seconds, what.c_str());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 3);
    std::abort();  // MPI_Abort does not return; this line says so to the compiler and the reader
}

}  // namespace detail

}  // namespace tinyamp::distributed
