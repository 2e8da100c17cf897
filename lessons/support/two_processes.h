#pragma once
// Lesson 21 and lab 21 run on 2 processes. Their programs start as every other lesson's and lab's
// do (lesson_21, scripts/lab check 21) and start themselves again under mpiexec, printing the
// command, so a student types nothing new and sees what to type on a cluster. Every rank runs the
// same code (collectives need every rank to make the same calls); rank 0 speaks and writes files,
// the others run silently, and the exit status is the worst of all ranks'.
namespace tinyamp::lesson {

/// Returns at once under an MPI launcher. Otherwise runs `mpiexec -n 2 <this machine's options>
/// <this program> <its arguments>` (as root with Open MPI's two "allow" variables), printing it,
/// and exits with its status; exits 77 (skipped), saying so, when mpiexec could not start the
/// ranks (MPI cannot run here), and 1 when there is no mpiexec to run.
void restart_under_mpiexec(int argc, char** argv);

/// On every rank but 0, sends standard output to /dev/null: the ranks print the same text.
void quiet_unless_rank_zero();

/// The largest of every rank's `status` (an all_reduce MAX): one rank's failure fails them all.
int worst_status_of_all_ranks(int status);

}  // namespace tinyamp::lesson
