#include "lessons/support/two_processes.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <tinyamp/tinyamp.h>

#include "tinyamp/distributed/collectives.h"
#include "tinyamp/distributed/process_group.h"

// TINYAMP_MPIEXEC (mpiexec's path) and TINYAMP_MPIEXEC_FLAGS (space-separated: shared memory
// between the ranks, mpiexec's own traffic on loopback) come from CMake (tinyamp/distributed/).

extern char** environ;

namespace tinyamp::lesson {
namespace {

// Open MPI's launcher sets OMPI_COMM_WORLD_SIZE, MPICH's PMI_SIZE, a PMIx launcher PMIX_RANK.
bool started_by_a_launcher()
{
    return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMI_SIZE") || std::getenv("PMIX_RANK");
}

}  // namespace

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
    std::vector<char*> args;
    for (std::string& w : words) args.push_back(w.data());
    args.push_back(nullptr);
    pid_t child = 0;
    if (const int problem = posix_spawn(&child, TINYAMP_MPIEXEC, nullptr, nullptr, args.data(), environ)) {
        std::fprintf(stderr, "%s: could not start %s: %s (scripts/install-deps.sh installs Open MPI)\n", argv[0], TINYAMP_MPIEXEC,
                     std::strerror(problem));
        std::exit(1);
    }
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    const bool ranks_started = std::filesystem::remove(mark, error);
    if (!ranks_started) {
        // Exit 77: reported as skipped by CTest and the tour, with the reason here.
        std::fprintf(stderr, "%s: mpiexec could not start 2 processes on this machine, so this runs nowhere here (skipped). "
                             "Its reason: run the command above without -q.\n", argv[0]);
        std::exit(77);
    }
    std::exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}

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

int worst_status_of_all_ranks(int status)
{
    const Tensor worst = full({1}, double(status), f64);
    distributed::all_reduce(worst, distributed::ReduceOp::MAX);
    return int(worst.item());
}

}  // namespace tinyamp::lesson
