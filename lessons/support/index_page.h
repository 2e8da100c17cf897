#pragma once
// What a lesson run leaves behind for the index page: OUT/NN_slug/result.txt (status, claims,
// key results, pictures) and a copy of the lesson's README.md; write_index() turns every such
// folder under OUT into OUT/index.html, so running one lesson again keeps the others listed.
#include <filesystem>
#include <string>
#include <vector>

#include "lessons/support/lesson.h"

namespace tinyamp::lesson {

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
};

void save_result(const LessonResult& result, const std::filesystem::path& out);
/// Reads OUT/*/result.txt; a file that cannot be read is listed on the page as unreadable.
std::vector<LessonResult> load_results(const std::filesystem::path& out);
/// Writes OUT/index.html and returns its path.
std::filesystem::path write_index(const std::filesystem::path& out);

}  // namespace tinyamp::lesson
