#include "lessons/support/lesson.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "lessons/support/graph_render.h"

namespace tinyamp::lesson {
namespace {

std::vector<LessonInfo>& registry()
{
    static std::vector<LessonInfo> lessons;
    return lessons;
}

// Prints `text` indented, keeping the lesson's own line breaks.
void print_indented(std::string_view prefix, std::string_view text)
{
    std::string_view indent = prefix;
    std::string pad(prefix.size(), ' ');
    while (!text.empty()) {
        const std::size_t end = text.find('\n');
        std::cout << indent << text.substr(0, end) << '\n';
        if (end == std::string_view::npos) break;
        text.remove_prefix(end + 1);
        indent = pad;
    }
}

}  // namespace

Lesson::Lesson(const LessonInfo& info, std::filesystem::path folder) : info_(info), folder_(std::move(folder))
{
    std::filesystem::create_directories(folder_);
}

void Lesson::step(std::string_view title)
{
    std::cout << '\n' << ++steps_ << ") " << title << '\n';
}

void Lesson::say(std::string_view text)
{
    print_indented("   ", text);
}

void Lesson::expect(std::string_view text)
{
    print_indented("   Expect: ", text);
}

bool Lesson::check(bool holds, std::string_view claim)
{
    ++checks_;
    if (!holds) ++failures_;
    std::cout << (holds ? "   ok: " : "   WRONG: ") << claim << '\n';
    return holds;
}

void Lesson::key_result(std::string text)
{
    key_results_.push_back(std::move(text));
}

void Lesson::skip(const std::string& reason)
{
    throw Skipped(reason);
}

void Lesson::write_file(const std::string& file, const std::string& text)
{
    // Through a temporary name, so an interrupted run never leaves half a picture behind.
    io::write_file_atomically((folder_ / file).string(), text);
}

void Lesson::write_graph(const std::string& name, const trace::Trace& trace, const std::string& caption)
{
    const std::string dot = trace.to_dot();
    write_file(name + ".dot", dot);
    if (const std::optional<std::string> svg = dot_to_svg(dot)) {
        write_file(name + ".svg", *svg);
        pictures_.push_back({name + ".svg", caption});
    } else {
        pictures_.push_back({name + ".dot", caption + " (Graphviz DOT; `dot -Tsvg` draws it)"});
    }
    std::cout << "   [picture] " << (folder_ / pictures_.back().file).string() << '\n';
}

void Lesson::write_plot(const std::string& name, const LinePlot& plot, const std::string& caption)
{
    write_file(name + ".svg", render_svg(plot));
    pictures_.push_back({name + ".svg", caption});
    std::cout << "   [picture] " << (folder_ / (name + ".svg")).string() << '\n';
}

void Lesson::write_plot(const std::string& name, const Histogram& plot, const std::string& caption)
{
    write_file(name + ".svg", render_svg(plot));
    pictures_.push_back({name + ".svg", caption});
    std::cout << "   [picture] " << (folder_ / (name + ".svg")).string() << '\n';
}

Registration::Registration(const LessonInfo& info)
{
    registry().push_back(info);
}

std::vector<LessonInfo> registered_lessons()
{
    std::vector<LessonInfo> lessons = registry();
    std::sort(lessons.begin(), lessons.end(), [](const LessonInfo& a, const LessonInfo& b) { return a.number < b.number; });
    return lessons;
}

std::string fmt(double value)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.4g", value);
    return buffer;
}

std::string wrap(std::string_view text, std::size_t width)
{
    std::string out;
    std::size_t line = 0;  // characters on the current line
    while (!text.empty()) {
        if (text.front() == '\n') {
            out += '\n';
            line = 0;
            text.remove_prefix(1);
            continue;
        }
        if (text.front() == ' ') {
            text.remove_prefix(1);
            continue;
        }
        const std::size_t end = std::min(text.find_first_of(" \n"), text.size());
        if (line > 0 && line + 1 + end > width) {
            out += '\n';
            line = 0;
        } else if (line > 0) {
            out += ' ';
            ++line;
        }
        out += text.substr(0, end);
        line += end;
        text.remove_prefix(end);
    }
    return out;
}

}  // namespace tinyamp::lesson
