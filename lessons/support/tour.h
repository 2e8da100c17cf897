#pragma once
// The lessons' main(): every lesson program (lesson_02 ...) and the tour (tinyamp-tour) run it;
// lesson 21's program calls it on each of its 2 processes (two_processes_main.cpp).
//
//   tinyamp-tour [--out DIR] [--lesson N]... [--list] [--cpu] [--index]

namespace tinyamp::lesson {

/// Runs the registered lessons as the command line asks; the exit status (tour.cpp says which).
int tour_main(int argc, char** argv);

}  // namespace tinyamp::lesson
