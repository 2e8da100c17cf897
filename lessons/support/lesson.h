#pragma once
// The frame every lesson runs in. A lesson is a function that talks to the student through a
// Lesson: it says what to expect, shows it, and checks its own claim, so a lesson whose claims
// stop holding (a changed kernel, a new rounding) exits non-zero instead of teaching something false.
//
//   void run(lesson::Lesson& L) {
//       L.step("Range");
//       L.expect("65504 is the largest f16; twice that overflows to inf.");
//       L.check(std::isinf(scalar_tensor(131008.0, f16).item()), "131008 overflows to inf in f16");
//       L.key_result("f16 overflows above 65504");
//   }
//   const lesson::Registration registered{{2, "number_formats", "Number formats", "range and precision", run}};
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <tinyamp/tinyamp.h>

#include "lessons/support/tensor_distance.h"  // relative_difference, max_abs_difference
#include "training/svg_plot.h"

namespace tinyamp::lesson {

// The charts the lessons draw (training/svg_plot.h, shared with tinyamp-train).
using plot::escape_xml;
using plot::Histogram;
using plot::LinePlot;
using plot::make_histogram;
using plot::Mark;
using plot::render_svg;
using plot::Series;

class Lesson;
using LessonBody = void (*)(Lesson&);

struct LessonInfo {
    int number = 0;             ///< 1, 2, ...: the order of the tour
    const char* slug = "";      ///< folder name without the number: "number_formats"
    const char* title = "";     ///< "Number formats: f32, f16, bf16"
    const char* teaches = "";   ///< the one idea the lesson teaches (its README names it too)
    LessonBody body = nullptr;
    /// A lesson that runs as a program of its own ("lesson_21", which runs on 2 processes under
    /// mpiexec) instead of a body: the tour runs that program, from its own folder, and reads the
    /// result it saved.
    const char* program = nullptr;
};

/// A file the lesson wrote into its output folder, with the sentence the index shows under it.
struct Picture {
    std::string file;     ///< relative to the lesson's folder: "graph.svg"
    std::string caption;
};

/// Thrown by Lesson::skip: the lesson cannot run here (no GPU); it is reported, not failed.
struct Skipped : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class Lesson {
public:
    Lesson(const LessonInfo& info, std::filesystem::path folder);

    const LessonInfo& info() const { return info_; }
    const std::filesystem::path& folder() const { return folder_; }

    void step(std::string_view title);      ///< "-- 2) Range": numbers the steps
    void say(std::string_view text);        ///< a paragraph of explanation
    void expect(std::string_view text);     ///< "Expect: ...", always before what it predicts
    /// Records a claim: prints "ok: ..." or "WRONG: ..." and counts the failures. Returns `holds`.
    bool check(bool holds, std::string_view claim);
    /// One line the tour prints at the end of the lesson and the index page shows.
    void key_result(std::string text);
    [[noreturn]] void skip(const std::string& reason);

    /// Writes name.dot and, where Graphviz is linked, name.svg (the trace, colored by dtype).
    void write_graph(const std::string& name, const trace::Trace& trace, const std::string& caption);
    void write_plot(const std::string& name, const LinePlot& plot, const std::string& caption);
    void write_plot(const std::string& name, const Histogram& plot, const std::string& caption);

    int failures() const { return failures_; }
    int checks() const { return checks_; }
    const std::vector<std::string>& key_results() const { return key_results_; }
    const std::vector<Picture>& pictures() const { return pictures_; }

private:
    void write_file(const std::string& file, const std::string& text);

    LessonInfo info_;
    std::filesystem::path folder_;
    int steps_ = 0;
    int checks_ = 0;
    int failures_ = 0;
    std::vector<std::string> key_results_;
    std::vector<Picture> pictures_;
};

/// Adds a lesson to the program's list (one static Registration per lesson.cpp).
struct Registration {
    explicit Registration(const LessonInfo& info);
};
/// The registered lessons, ordered by number.
std::vector<LessonInfo> registered_lessons();

/// Formats a number the way the lessons print figures: "%.4g".
std::string fmt(double value);

/// `text` with its spaces turned into line breaks where a line would pass `width` characters
/// (existing line breaks are kept): for sentences a lesson did not write itself, such as
/// backends::cpu::matmul_hardware().expectation, before say() or expect() indents them.
std::string wrap(std::string_view text, std::size_t width = 96);

}  // namespace tinyamp::lesson
