#pragma once
// Starting another program and waiting for it: the tour runs lesson 21's program this way
// (lesson_program.cpp), and that program runs mpiexec (two_processes.cpp).
#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

extern char** environ;

namespace tinyamp::lesson {

/// How a child program ended.
struct ChildExit {
    bool started = false;  ///< false: it could not be started (`problem` says why)
    int status = -1;       ///< its exit status; -1 when it did not exit by itself (`problem` says why)
    std::string problem;
};

/// Runs `argv` (argv[0] the program's path) with this process's environment and waits for it.
inline ChildExit run_and_wait(std::vector<std::string> argv)
{
    std::vector<char*> pointers;
    for (std::string& word : argv) pointers.push_back(word.data());
    pointers.push_back(nullptr);
    ChildExit exit;
    pid_t child = 0;
    if (const int error = posix_spawn(&child, argv[0].c_str(), nullptr, nullptr, pointers.data(), environ)) {
        exit.problem = "could not start " + argv[0] + ": " + std::strerror(error);
        return exit;
    }
    exit.started = true;
    int status = 0;
    while (waitpid(child, &status, 0) < 0) {
        if (errno != EINTR) {
            exit.problem = "waiting for " + argv[0] + " failed: " + std::strerror(errno);
            return exit;
        }
    }
    if (WIFEXITED(status))
        exit.status = WEXITSTATUS(status);
    else
        exit.problem = argv[0] + " was ended by signal " + std::to_string(WTERMSIG(status));
    return exit;
}

}  // namespace tinyamp::lesson
