#pragma once
// Lesson 21 and lab 21 run on 2 processes. Their programs start as every other lesson's and lab's
// do (lesson_21, scripts/lab check 21) and start themselves again under mpiexec, printing the
// command, so a student types nothing new and sees what to type on a cluster. Every rank runs the
// same code (collectives need every rank to make the same calls); rank 0 speaks and writes files,
// the others run silently, and the exit status is the worst of all ranks'.
#include <functional>

namespace tinyamp::lesson {

/// The main() of a program on 2 processes. Started by hand, it runs `mpiexec -n 2 <this machine's
/// options> <this program> <its arguments>` (printing it; as root with Open MPI's two "allow"
/// variables) and ends with its status: 77 (skipped), saying so, when mpiexec could not start the
/// ranks (MPI cannot run here), 1 when there is no mpiexec. On each rank mpiexec starts, it joins
/// the process group (waits bounded by `timeout_seconds`), sends standard output to /dev/null but
/// on rank 0, runs `body` and returns the worst status of all ranks, after leaving the group.
int main_on_two_processes(int argc, char** argv, double timeout_seconds, const std::function<int()>& body);

}  // namespace tinyamp::lesson
