#pragma once
// Lesson 21's name, title and idea, in one place: its program registers the lesson with them
// (lesson.cpp), and the tour, which runs that program (support/lessons_elsewhere.cpp), lists it.
namespace tinyamp::lesson21 {

inline constexpr int kNumber = 21;
inline constexpr const char* kSlug = "amp_across_processes";
inline constexpr const char* kTitle = "AMP across processes";
inline constexpr const char* kTeaches =
    "data-parallel and sharded AMP over MPI: agree on found-inf across ranks, what a bf16 all-reduce loses, memory per rank";

}  // namespace tinyamp::lesson21
