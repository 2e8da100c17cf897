#pragma once
// What the student tree puts where a lab's solution was: a call that throws NotDone naming the
// lab item, so the lab's tests fail with "lab 02.1 is not done yet" instead of a wrong number.
// (scripts/student-tree.sh and lessons/support/strip_solutions.py write those calls.)
#include <stdexcept>
#include <string>

namespace tinyamp::lesson {

struct NotDone : std::logic_error {
    explicit NotDone(const std::string& item)
        : std::logic_error(item + " is not done yet: write it where lab.cpp says TODO(" + item + ")")
    {
    }
};

}  // namespace tinyamp::lesson
