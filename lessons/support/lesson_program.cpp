#include "lessons/support/lesson_program.h"

#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

extern char** environ;

namespace tinyamp::lesson {
namespace fs = std::filesystem;

namespace {

// Starts `program` with `args` (this process's environment) and waits; its exit status, or -1
// with `problem` set when it could not start or was killed.
int run_and_wait(const fs::path& program, const std::vector<std::string>& args, std::string& problem)
{
    std::vector<char*> argv;
    std::string path = program.string();
    argv.push_back(path.data());
    std::vector<std::string> copies = args;
    for (std::string& a : copies) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t child = 0;
    if (const int error = posix_spawn(&child, path.c_str(), nullptr, nullptr, argv.data(), environ)) {
        problem = "could not start " + path + ": " + std::strerror(error);
        return -1;
    }
    int status = 0;
    while (waitpid(child, &status, 0) < 0) {
        if (errno != EINTR) {
            problem = std::string("waiting for ") + path + " failed: " + std::strerror(errno);
            return -1;
        }
    }
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    problem = path + " was ended by signal " + std::to_string(WTERMSIG(status));
    return -1;
}

}  // namespace

LessonResult run_lesson_program(const LessonInfo& info, const fs::path& out, const std::string& folder)
{
    LessonResult result;
    result.number = info.number;
    result.folder = folder;
    result.title = info.title;
    result.teaches = info.teaches;
    result.machine = this_machine();
    std::error_code error;
    fs::create_directories(out / folder, error);  // where the result goes, whoever writes it
    const fs::path here = fs::read_symlink("/proc/self/exe", error).parent_path();
    const fs::path program = here / info.program;
    if (error || !fs::exists(program)) {
        result.status = "skipped";
        result.note = std::string(info.program) + " is not built here: it runs on 2 processes and needs MPI, which CMake did not "
                      "find (scripts/install-deps.sh installs Open MPI; configure again after it)";
        std::cout << "\n======== Lesson " << info.number << ": " << info.title << " ========\n   SKIPPED: " << result.note << '\n';
        save_result(result, out);
        return result;
    }
    fs::remove(out / folder / "result.txt", error);  // a result from an earlier run must not pass for this one's
    std::string problem;
    std::cout.flush();  // what the tour printed so far comes before what the program prints
    setenv("TINYAMP_LESSON_IN_TOUR", "1", 1);  // the program then prints its lesson only (tour.cpp)
    const int status = run_and_wait(program, {"--out", out.string()}, problem);
    unsetenv("TINYAMP_LESSON_IN_TOUR");
    for (const LessonResult& saved : load_results(out))
        if (saved.folder == folder) result = saved;
    if (result.status.empty() && status == 77) {
        result.status = "skipped";
        result.note = "mpiexec could not start the lesson's 2 processes on this machine (MPI cannot run here)";
        std::cout << "\n   SKIPPED: " << result.note << '\n';
        save_result(result, out);
    } else if (result.status.empty()) {
        result.status = "failed";
        result.note = problem.empty() ? std::string(info.program) + " ended (status " + std::to_string(status) + ") without saving its result"
                                      : problem;
        std::cout << "\n   ERROR: " << result.note << '\n';
        save_result(result, out);
    } else if (status != 0 && status != 77 && result.status == "passed") {
        result.status = "failed";
        result.note = std::string(info.program) + " saved a passing result but ended with status " + std::to_string(status);
        save_result(result, out);
    }
    return result;
}

}  // namespace tinyamp::lesson
