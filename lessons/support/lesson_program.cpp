#include "lessons/support/lesson_program.h"

#include <cstdlib>
#include <iostream>
#include <string>

#include "lessons/support/child_process.h"

namespace tinyamp::lesson {
namespace fs = std::filesystem;

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
    std::cout.flush();  // what the tour printed so far comes before what the program prints
    setenv("TINYAMP_LESSON_IN_TOUR", "1", 1);  // the program then prints its lesson only (tour.cpp)
    const ChildExit child = run_and_wait({program.string(), "--out", out.string()});
    const int status = child.status;
    const std::string& problem = child.problem;
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
