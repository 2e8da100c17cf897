// main() of lesson 21's program: started by hand (or by the tour) it starts itself again under
// mpiexec on 2 processes; each rank runs the lesson (tour.cpp's main). Rank 0 prints and writes
// the lesson's folder; the others print nothing and write their pictures into a scratch folder
// of their own, removed at the end.
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "lessons/support/tour.h"
#include "lessons/support/two_processes.h"
#include "tinyamp/distributed/process_group.h"

namespace fs = std::filesystem;

int main(int argc, char** argv)
{
    return tinyamp::lesson::main_on_two_processes(argc, argv, 60, [&] {
        const int rank = tinyamp::distributed::get_rank();
        std::vector<std::string> args(argv, argv + argc);
        fs::path scratch;
        if (rank != 0) {
            scratch = fs::temp_directory_path() / ("tinyamp-rank-" + std::to_string(rank) + "-" + std::to_string(getpid()));
            args.insert(args.end(), {"--out", scratch.string()});  // the last --out is the one used
        }
        std::vector<char*> pointers;
        for (std::string& a : args) pointers.push_back(a.data());
        const int status = tinyamp::lesson::tour_main(int(pointers.size()), pointers.data());
        std::error_code ignored;
        if (!scratch.empty()) fs::remove_all(scratch, ignored);
        return status;
    });
}
