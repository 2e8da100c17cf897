#include "lessons/support/two_processes.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include <tinyamp/tinyamp.h>

#include "lessons/support/child_process.h"
#include "tinyamp/distributed/collectives.h"
#include "tinyamp/distributed/process_group.h"

// TINYAMP_MPIEXEC (mpiexec's path) and TINYAMP_MPIEXEC_FLAGS (space-separated: shared memory
// between the ranks, mpiexec's own traffic on loopback) come from CMake (tinyamp/distributed/).

namespace tinyamp::lesson {
namespace {

// Open MPI's launcher sets OMPI_COMM_WORLD_SIZE, MPICH's PMI_SIZE, a PMIx launcher PMIX_RANK.
bool started_by_a_launcher()
{
    return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMI_SIZE") || std::getenv("PMIX_RANK");
}

// Returns at once under an MPI launcher. Otherwise runs `mpiexec -n 2 <this machine's options>
// <this program> <its arguments>` (as root with Open MPI's two "allow" variables), printing it,
// and exits with its status; exits 77 (skipped), saying so, when mpiexec could not start the
// ranks (MPI cannot run here), and 1 when there is no mpiexec to run.
void restart_under_mpiexec(int argc, char** argv)
{
    // The ranks' mark that they started: mpiexec's failure to start them is told from theirs.
    const char* started_mark = std::getenv("TINYAMP_RANKS_STARTED_MARK");
    if (started_by_a_launcher()) {
        if (started_mark) close(open(started_mark, O_WRONLY | O_CREAT, 0600));
        return;
    }
    if (started_mark) {
        // mpiexec ran us but set none of the variables above: not an MPI we know; stop, not loop.
        std::fprintf(stderr, "%s: started by %s, which set none of OMPI_COMM_WORLD_SIZE, PMI_SIZE, PMIX_RANK: run it as "
                             "`mpiexec -n 2 %s` with Open MPI (scripts/install-deps.sh installs it)\n",
                     argv[0], TINYAMP_MPIEXEC, argv[0]);
        std::exit(1);
    }
    std::error_code error;
    const std::string self = std::filesystem::read_symlink("/proc/self/exe", error).string();
    std::vector<std::string> words{TINYAMP_MPIEXEC, "-q", "-n", "2"};  // -q: no mpiexec banner when a rank fails
    std::istringstream flags(TINYAMP_MPIEXEC_FLAGS);
    for (std::string flag; flags >> flag;) words.push_back(flag);
    words.push_back(error ? std::string(argv[0]) : self);
    for (int i = 1; i < argc; ++i) words.push_back(argv[i]);
    std::string shown;
    for (const std::string& w : words) shown += (shown.empty() ? "" : " ") + w;
    std::printf("(2 processes: %s)\n", shown.c_str());
    std::fflush(stdout);

    const std::string mark = (std::filesystem::temp_directory_path() / ("tinyamp-ranks-started-" + std::to_string(getpid()))).string();
    std::filesystem::remove(mark, error);
    setenv("TINYAMP_RANKS_STARTED_MARK", mark.c_str(), 1);
    if (geteuid() == 0) {  // Open MPI refuses root unless told twice
        setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
        setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
    }
    const ChildExit mpiexec = run_and_wait(words);
    if (!mpiexec.started) {
        std::fprintf(stderr, "%s: %s (scripts/install-deps.sh installs Open MPI)\n", argv[0], mpiexec.problem.c_str());
        std::exit(1);
    }
    const bool ranks_started = std::filesystem::remove(mark, error);
    if (!ranks_started) {
        // Exit 77: reported as skipped by CTest and the tour, with the reason here.
        std::fprintf(stderr, "%s: mpiexec could not start 2 processes on this machine, so this runs nowhere here (skipped). "
                             "Its reason: run the command above without -q.\n", argv[0]);
        std::exit(77);
    }
    std::exit(mpiexec.status >= 0 ? mpiexec.status : 1);
}

// On every rank but 0, sends standard output to /dev/null: the ranks print the same text.
void quiet_unless_rank_zero()
{
    if (distributed::get_rank() == 0) return;
    std::fflush(stdout);
    const int null = open("/dev/null", O_WRONLY);
    if (null >= 0) {
        dup2(null, STDOUT_FILENO);
        close(null);
    }
}

// The largest of every rank's `status` (an all_reduce MAX): one rank's failure fails them all.
int worst_status_of_all_ranks(int status)
{
    const Tensor worst = full({1}, double(status), f64);
    distributed::all_reduce(worst, distributed::ReduceOp::MAX);
    return int(worst.item());
}

}  // namespace

int main_on_two_processes(int argc, char** argv, double timeout_seconds, const std::function<int()>& body)
{
    restart_under_mpiexec(argc, argv);
    distributed::init_process_group(argc, argv, {.timeout_seconds = timeout_seconds});
    quiet_unless_rank_zero();
    const int status = worst_status_of_all_ranks(body());
    distributed::destroy_process_group();
    return status;
}

}  // namespace tinyamp::lesson
