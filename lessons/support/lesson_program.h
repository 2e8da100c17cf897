#pragma once
// A lesson that is a program of its own (LessonInfo::program: lesson 21 runs on 2 processes under
// mpiexec, which the tour's one process cannot be): the tour starts that program beside itself and
// reads back the result.txt it saved, so the lesson is listed, counted and indexed as any other.
#include <filesystem>

#include "lessons/support/index_page.h"

namespace tinyamp::lesson {

/// Runs info.program from this program's folder with `--out out` and returns the result it saved
/// in out/`folder`. Skipped, saying why, when the program was not built here (lesson 21 without
/// MPI); failed when it ended without a result or with a failing status.
LessonResult run_lesson_program(const LessonInfo& info, const std::filesystem::path& out, const std::string& folder);

}  // namespace tinyamp::lesson
