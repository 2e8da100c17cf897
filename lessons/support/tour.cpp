// The lessons' main(): runs every registered lesson in order (the tour, tinyamp-tour) or the one a
// lesson program was built with (lesson_02 ...), writes each lesson's pictures into its own folder
// and rebuilds OUT/index.html from every lesson folder found there.
//
//   tinyamp-tour [--out DIR] [--lesson N]... [--list] [--cpu] [--index]
//
// --index rewrites OUT/index.html from the results already there, with the lessons' texts as the
// source tree has them now, and runs no lesson (scripts/web.sh does so for a copied tour).
// --cpu prints the machine (the CPU, the features in use after TINYAMP_CPU's cap, the GEMM tiers,
// what bf16 products can gain) and exits: scripts/test.sh asks it what each TINYAMP_CPU level gives.
//
// Exit status: 0 when every claim held, 1 when one did not (or a lesson threw), 77 when every lesson
// that ran was skipped (the GPU lesson on a machine without one), 2 for bad options.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <iostream>
#include <optional>
#include <set>
#include <string>

#include "lessons/support/index_page.h"
#include "lessons/support/lesson.h"
#include "lessons/support/lesson_program.h"
#include "lessons/support/tour.h"

using namespace tinyamp;
namespace fs = std::filesystem;

namespace {

std::string folder_name(const lesson::LessonInfo& info)
{
    char number[8];
    std::snprintf(number, sizeof number, "%02d_", info.number);
    return number + std::string(info.slug);
}

int usage(const char* program, const std::string& problem)
{
    if (!problem.empty()) std::cerr << program << ": " << problem << "\n";
    std::cerr << "usage: " << program << " [--out DIR] [--lesson N]... [--list] [--cpu] [--index]\n"
              << "  --out DIR     where the pictures and index.html go (default: the build folder's tour/)\n"
              << "  --lesson N    run lesson N only (repeat for several); default: all, in order\n"
              << "  --list        print the lessons and exit\n"
              << "  --cpu         print the CPU features in use (after TINYAMP_CPU), the GEMM tiers and what\n"
              << "                bf16 products can gain here, and exit\n"
              << "  --index       rewrite DIR/index.html from the results already in DIR (run no lesson)\n";
    return problem.empty() ? 0 : 2;
}

// --cpu: one "name: value" line each, the features on a line of their own for scripts to compare.
int print_machine()
{
    const lesson::Machine m = lesson::this_machine();
    const backends::cpu::MatmulHardware& hw = backends::cpu::matmul_hardware();
    std::cout << "cpu: " << m.cpu << "\nfeatures in use: " << m.features << "\nTINYAMP_CPU: " << (m.tinyamp_cpu.empty() ? "(unset)" : m.tinyamp_cpu)
              << "\ngemm tiers: " << m.tiers << "\nbf16 products: " << m.bf16 << "\ninstruction peaks (one core, in registers): ";
    if (hw.f32_peak_gflops > 0)
        std::cout << "f32 " << lesson::fmt(hw.f32_peak_gflops) << " GFLOP/s, bf16 " << lesson::fmt(hw.bf16_peak_gflops) << " GFLOP/s\n";
    else
        std::cout << "not measured on the portable tier\n";
    return 0;
}

// Runs one lesson; returns its result for the index page.
lesson::LessonResult run_one(const lesson::LessonInfo& info, const fs::path& out)
{
    if (info.program) return lesson::run_lesson_program(info, out, folder_name(info));
    lesson::Lesson L(info, out / folder_name(info));
    std::cout << "\n======== Lesson " << info.number << ": " << info.title << " ========\n"
              << "(teaches: " << info.teaches << ")\n";
    lesson::LessonResult result;
    result.number = info.number;
    result.folder = folder_name(info);
    result.title = info.title;
    result.teaches = info.teaches;
    result.status = "passed";
    result.machine = lesson::this_machine();
    try {
        info.body(L);
    } catch (const lesson::Skipped& skipped) {
        result.status = "skipped";
        result.note = skipped.what();
        std::cout << "\n   SKIPPED: " << skipped.what() << '\n';
    } catch (const std::exception& error) {
        result.status = "failed";
        result.note = std::string("the lesson stopped with an error: ") + error.what();
        std::cout << "\n   ERROR: " << error.what() << '\n';
    }
    result.checks = L.checks();
    result.failures = L.failures();
    result.key_results = L.key_results();
    result.pictures = L.pictures();
    if (result.status == "passed" && L.failures() > 0) result.status = "failed";
    if (result.status == "passed" && L.checks() == 0) {
        result.status = "failed";
        result.note = "the lesson checked none of its claims";
    }
    std::cout << "\n-- Lesson " << info.number << " key results:\n";
    for (const std::string& line : result.key_results) std::cout << "   * " << line << '\n';
    std::cout << "-- Lesson " << info.number << ": " << result.status << " (" << result.checks - result.failures << " of "
              << result.checks << " claims held)\n";
    lesson::save_result(result, out);
    return result;
}

// Where the pictures go without --out: the build folder's tour/ (build/tour, as the walkthrough
// writes), found from this program's own path, so a lesson run from any folder leaves nothing in
// it. A program copied out of a build folder writes tour-output/ in the current folder instead.
fs::path default_out()
{
    std::error_code error;
    const fs::path program = fs::read_symlink("/proc/self/exe", error);
    if (!error) {
        const fs::path build = program.parent_path().parent_path();
        if (fs::exists(build / "CMakeCache.txt", error)) return build / "tour";
    }
    return "tour-output";
}

// The command line.
struct Options {
    fs::path out = default_out();
    std::set<int> chosen;  // --lesson: none for all of them
    bool list = false, cpu = false, index_only = false;
};

// Reads the command line into `options`; an exit status when the program stops there (--help, a
// bad option).
std::optional<int> read_options(int argc, char** argv, Options& options)
{
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--help" || arg == "-h") return usage(argv[0], "");
        if (arg == "--list") {
            options.list = true;
        } else if (arg == "--cpu") {
            options.cpu = true;
        } else if (arg == "--index") {
            options.index_only = true;
        } else if ((arg == "--out" || arg == "--lesson") && i + 1 < argc) {
            const std::string value = argv[++i];
            if (arg == "--out") {
                options.out = value;
            } else {
                char* end = nullptr;
                const long n = std::strtol(value.c_str(), &end, 10);
                if (value.empty() || *end != '\0') return usage(argv[0], "--lesson takes a number, not '" + value + "'");
                options.chosen.insert(static_cast<int>(n));
            }
        } else {
            return usage(argv[0], "unknown option '" + arg + "'" + (arg == "--out" || arg == "--lesson" ? " (it needs a value)" : ""));
        }
    }
    return std::nullopt;
}

// Runs the chosen lessons (all when none is) in order, then rebuilds the index; the exit status.
// A lesson program the tour started (lesson_program.cpp sets TINYAMP_LESSON_IN_TOUR) prints its
// lesson only: the tour prints the machine, the count and the index, and writes the index.
int run_tour(const std::vector<lesson::LessonInfo>& lessons, const std::set<int>& chosen, const fs::path& out)
{
    const bool in_tour = std::getenv("TINYAMP_LESSON_IN_TOUR") != nullptr;
    const lesson::Machine machine = lesson::this_machine();
    if (!in_tour)
        std::cout << "Machine: " << machine.cpu << "; features in use: " << machine.features
              << (machine.tinyamp_cpu.empty() ? "" : " (TINYAMP_CPU=" + machine.tinyamp_cpu + ")") << "; GEMM tiers: " << machine.tiers
              << "\n";
    int failed = 0, skipped = 0, ran = 0;
    for (const lesson::LessonInfo& info : lessons) {
        if (!chosen.empty() && !chosen.count(info.number)) continue;
        const lesson::LessonResult result = run_one(info, out);
        ++ran;
        failed += result.status == "failed";
        skipped += result.status == "skipped";
    }
    if (in_tour) return failed ? 1 : skipped == ran ? 77 : 0;
    const fs::path index = lesson::write_index(out);
    std::cout << "\n======== " << ran << " lesson(s): " << ran - failed - skipped << " passed, " << failed << " failed, " << skipped
              << " skipped\nPictures and the index: " << fs::absolute(index).string() << '\n';
    if (failed) return 1;
    return skipped == ran ? 77 : 0;
}

}  // namespace

namespace tinyamp::lesson {

int tour_main(int argc, char** argv)
{
    Options options;
    if (const std::optional<int> status = read_options(argc, argv, options)) return *status;
    const fs::path& out = options.out;
    if (options.cpu) return print_machine();
    if (options.index_only) {
        if (!fs::is_directory(out)) return usage(argv[0], "--index: " + out.string() + " holds no tour (run the lessons first)");
        std::cout << "The index: " << fs::absolute(lesson::write_index(out)).string() << '\n';
        return 0;
    }
    const std::vector<lesson::LessonInfo> lessons = lesson::registered_lessons();
    if (options.list) {
        for (const lesson::LessonInfo& info : lessons) std::cout << info.number << "  " << info.title << "  (" << info.teaches << ")\n";
        return 0;
    }
    for (int n : options.chosen) {
        bool known = false;
        for (const lesson::LessonInfo& info : lessons) known = known || info.number == n;
        if (!known) return usage(argv[0], "there is no lesson " + std::to_string(n) + " in this program (--list shows them)");
    }
    return run_tour(lessons, options.chosen, out);
}

}  // namespace tinyamp::lesson
