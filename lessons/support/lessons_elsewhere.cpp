// The lessons the tour runs as programs of their own (LessonInfo::program): lesson 21 runs on 2
// processes under mpiexec, which this one process cannot be. Only the tour has this file; the
// lesson's own program registers its body (lessons/21_amp_across_processes/lesson.cpp).
#include "lessons/21_amp_across_processes/about.h"
#include "lessons/support/lesson.h"

namespace {

const tinyamp::lesson::Registration lesson_21{{tinyamp::lesson21::kNumber, tinyamp::lesson21::kSlug, tinyamp::lesson21::kTitle,
                                               tinyamp::lesson21::kTeaches, nullptr, "lesson_21"}};

}  // namespace
