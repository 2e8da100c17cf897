#pragma once
// What a lesson run leaves behind for the index page: OUT/NN_slug/result.txt (status, claims,
// key results, pictures, the machine it ran on). write_index() turns every such folder under OUT
// into OUT/index.html, so running one lesson again keeps the others listed, with each lesson's
// text rendered (lesson_text_html.h) from a copy of its README.md it puts beside result.txt.
#include <filesystem>
#include <string>
#include <vector>

#include "lessons/support/lesson.h"

namespace tinyamp::lesson {

/// The machine a lesson ran on, as the index page and `tinyamp-tour --cpu` show it: what
/// backends::cpu::matmul_hardware() reports, after the TINYAMP_CPU cap.
struct Machine {
    std::string cpu;          ///< "AMD EPYC 7B13"
    std::string features;     ///< the CPU features in use: "f16c avx2 fma", or "portable"
    std::string tinyamp_cpu;  ///< the TINYAMP_CPU setting, "" when unset
    std::string tiers;        ///< the GEMM tiers of large products: "f32 avx2, bf16 avx2"
    std::string bf16;         ///< what to expect of bf16 products, in one line: "not faster than f32: ..."

    bool operator==(const Machine&) const = default;
};

/// This process's machine (reads the CPU and times its instructions once: a few milliseconds).
Machine this_machine();

struct LessonResult {
    int number = 0;
    std::string folder;        ///< "02_number_formats"
    std::string title;
    std::string teaches;
    std::string status;        ///< "passed", "failed" or "skipped"
    int checks = 0;
    int failures = 0;
    std::vector<std::string> key_results;
    std::vector<Picture> pictures;
    std::string note;          ///< why it was skipped or stopped
    Machine machine;           ///< where it ran (all empty in a result.txt from before machines were saved)
};

void save_result(const LessonResult& result, const std::filesystem::path& out);
/// Reads OUT/*/result.txt; a file that cannot be read is listed on the page as unreadable.
std::vector<LessonResult> load_results(const std::filesystem::path& out);
/// Writes OUT/index.html and returns its path. The page starts with this process's machine; a
/// lesson whose result was saved on another (another TINYAMP_CPU, say) names its own.
std::filesystem::path write_index(const std::filesystem::path& out);

}  // namespace tinyamp::lesson
