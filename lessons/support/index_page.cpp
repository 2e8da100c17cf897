#include "lessons/support/index_page.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "lessons/support/lesson_text_html.h"
#include "training/svg_plot.h"

namespace tinyamp::lesson {
namespace fs = std::filesystem;
namespace {

// result.txt holds one "key<TAB>value" per line; values never contain tabs or newlines.
std::string clean(std::string text)
{
    std::replace(text.begin(), text.end(), '\t', ' ');
    std::replace(text.begin(), text.end(), '\n', ' ');
    return text;
}

// The lesson text is kept beside lesson.cpp in the source tree; the index links a copy of it.
void copy_readme(const std::string& folder, const fs::path& destination)
{
#ifdef TINYAMP_LESSONS_SOURCE_DIR
    const fs::path source = fs::path(TINYAMP_LESSONS_SOURCE_DIR) / folder / "README.md";
    std::error_code ignored;
    if (fs::exists(source)) fs::copy_file(source, destination / "README.md", fs::copy_options::overwrite_existing, ignored);
#else
    (void)folder, (void)destination;
#endif
}

// The machine as a list for the page.
void write_machine(std::ostringstream& page, const Machine& m)
{
    page << "<ul class=\"machine\">\n<li><b>CPU:</b> " << escape_xml(m.cpu) << "</li>\n<li><b>Features in use:</b> "
         << escape_xml(m.features)
         << (m.tinyamp_cpu.empty() ? std::string(" (TINYAMP_CPU unset)") : " (capped by TINYAMP_CPU=" + escape_xml(m.tinyamp_cpu) + ")")
         << "</li>\n<li><b>GEMM tiers:</b> " << escape_xml(m.tiers) << "</li>\n<li><b>bf16 products:</b> " << escape_xml(m.bf16)
         << "</li>\n</ul>\n";
}

}  // namespace

Machine this_machine()
{
    const backends::cpu::MatmulHardware& hw = backends::cpu::matmul_hardware();
    const char* setting = std::getenv("TINYAMP_CPU");
    Machine m;
    m.cpu = hw.cpu_name;
    m.features = hw.features;
    m.tinyamp_cpu = setting ? setting : "";
    m.tiers = "f32 " + hw.f32_tier + ", bf16 " + hw.bf16_tier;
    m.bf16 = std::string(backends::cpu::bf16_speed_name(hw.bf16_speed)) + " than f32 (tier " + hw.bf16_tier + ": " +
             hw.bf16_instruction + ")";
    return m;
}

void save_result(const LessonResult& r, const fs::path& out)
{
    std::ostringstream text;
    text << "number\t" << r.number << "\ntitle\t" << clean(r.title) << "\nteaches\t" << clean(r.teaches) << "\nstatus\t"
         << r.status << "\nchecks\t" << r.checks << "\nfailures\t" << r.failures << "\nnote\t" << clean(r.note) << "\ncpu\t"
         << clean(r.machine.cpu) << "\nfeatures\t" << clean(r.machine.features) << "\ntinyamp_cpu\t" << clean(r.machine.tinyamp_cpu)
         << "\ntiers\t" << clean(r.machine.tiers) << "\nbf16\t" << clean(r.machine.bf16) << '\n';
    for (const std::string& line : r.key_results) text << "key\t" << clean(line) << '\n';
    for (const Picture& p : r.pictures) text << "picture\t" << clean(p.file) << '\t' << clean(p.caption) << '\n';
    io::write_file_atomically((out / r.folder / "result.txt").string(), text.str());
}

std::vector<LessonResult> load_results(const fs::path& out)
{
    std::vector<LessonResult> results;
    if (!fs::is_directory(out)) return results;
    for (const fs::directory_entry& entry : fs::directory_iterator(out)) {
        const fs::path file = entry.path() / "result.txt";
        if (!entry.is_directory() || !fs::exists(file)) continue;
        LessonResult r;
        r.folder = entry.path().filename().string();
        r.status = "unreadable";
        std::ifstream in(file);
        std::string line;
        while (std::getline(in, line)) {
            const std::size_t tab = line.find('\t');
            if (tab == std::string::npos) continue;
            const std::string key = line.substr(0, tab), value = line.substr(tab + 1);
            try {
                if (key == "number") r.number = std::stoi(value);
                else if (key == "status") r.status = value;
                else if (key == "checks") r.checks = std::stoi(value);
                else if (key == "failures") r.failures = std::stoi(value);
                else if (key == "note") r.note = value;
                else if (key == "key") r.key_results.push_back(value);
                else if (key == "title") r.title = value;
                else if (key == "teaches") r.teaches = value;
                else if (key == "cpu") r.machine.cpu = value;
                else if (key == "features") r.machine.features = value;
                else if (key == "tinyamp_cpu") r.machine.tinyamp_cpu = value;
                else if (key == "tiers") r.machine.tiers = value;
                else if (key == "bf16") r.machine.bf16 = value;
                else if (key == "picture") {
                    const std::size_t second = value.find('\t');
                    r.pictures.push_back({value.substr(0, second), second == std::string::npos ? "" : value.substr(second + 1)});
                }
            } catch (const std::exception&) {
                r.status = "unreadable";
                r.note = "result.txt has a bad line: " + line;
                break;
            }
        }
        results.push_back(std::move(r));
    }
    std::sort(results.begin(), results.end(), [](const LessonResult& a, const LessonResult& b) { return a.folder < b.folder; });
    return results;
}

namespace {

// The page's head and style, and its title.
void write_page_head(std::ostringstream& page)
{
    page << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>tinyamp lessons</title>\n"
         << "<style>body{font-family:sans-serif;max-width:980px;margin:2em auto;color:#222}"
            "h2{border-top:1px solid #ccc;padding-top:.6em}.passed{color:#2a7d3c}.failed{color:#c0392b}.skipped{color:#8a6d00}"
            "figure{display:inline-block;margin:.5em;vertical-align:top;max-width:460px}img{max-width:460px;border:1px solid #ddd}"
            "figcaption{font-size:.9em;color:#555}"
            ".lesson-text{border-left:3px solid #ccc;padding-left:1em}.lesson-text h1{font-size:1.5em}.lesson-text h2{font-size:1.2em}.lesson-text summary{cursor:pointer;color:#1a5fb4}"
            "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left}"
            "pre{background:#f4f4f4;padding:.6em;overflow-x:auto}code{background:#f4f4f4}"
            "blockquote{color:#555;border-left:3px solid #ddd;margin-left:0;padding-left:1em}</style></head><body>\n"
         << "<h1>tinyamp: the lessons</h1>\n<p>Each lesson said what to expect, showed it, and checked it. "
            "Run one again with <code>tinyamp-tour --lesson N</code>.</p>\n";
}

// One lesson's section: its heading and verdict, what it teaches, its text, its key results and
// its pictures; the machine it ran on when that is not `machine`.
void write_lesson(std::ostringstream& page, const LessonResult& r, const fs::path& out, const Machine& machine)
{
    page << "<h2 id=\"" << escape_xml(r.folder) << "\">" << r.number << ". " << escape_xml(r.title.empty() ? r.folder : r.title) << " <small class=\"" << escape_xml(r.status)
         << "\">" << escape_xml(r.status) << " (" << r.checks - r.failures << "/" << r.checks << " claims held)</small></h2>\n";
    std::ifstream text{out / r.folder / "README.md"};
    if (!r.teaches.empty())
        page << "<p><b>Teaches:</b> " << escape_xml(r.teaches) << "."
             << (text ? " <a href=\"#" + escape_xml(r.folder) + "-text\">Lesson text</a>" : std::string()) << "</p>\n";
    if (text) {  // the text itself, rendered (README.md beside it is the same text, as Markdown)
        std::stringstream readme;
        readme << text.rdbuf();
        page << "<details id=\"" << escape_xml(r.folder) << "-text\" class=\"lesson-text\"><summary>Read the lesson text</summary>\n"
             << lesson_text_html(readme.str(), r.folder) << "</details>\n";
    }
    if (!r.note.empty()) page << "<p><i>" << escape_xml(r.note) << "</i></p>\n";
    if (!r.machine.cpu.empty() && !(r.machine == machine)) {
        page << "<p><i>This lesson ran on another machine, or with another TINYAMP_CPU, than the one above:</i></p>\n";
        write_machine(page, r.machine);
    }
    page << "<ul>\n";
    for (const std::string& line : r.key_results) page << "<li>" << escape_xml(line) << "</li>\n";
    page << "</ul>\n";
    for (const Picture& p : r.pictures) {
        const std::string path = r.folder + "/" + p.file;
        const bool image = p.file.size() > 4 && p.file.substr(p.file.size() - 4) == ".svg";
        page << "<figure>" << (image ? "<a href=\"" + escape_xml(path) + "\"><img src=\"" + escape_xml(path) + "\"></a>" : "<a href=\"" + escape_xml(path) + "\">" + escape_xml(p.file) + "</a>")
             << "<figcaption>" << escape_xml(p.caption) << "</figcaption></figure>\n";
    }
}

// The visualizer's screenshots, when the walkthrough rendered them (scripts/viz-screenshots.sh
// into OUT/visualizer/): the same views, live in tinyamp-viz.
void write_screenshots(std::ostringstream& page, const fs::path& out)
{
    std::vector<std::string> shots;
    if (fs::is_directory(out / "visualizer"))
        for (const fs::directory_entry& entry : fs::directory_iterator(out / "visualizer"))
            if (entry.path().extension() == ".png") shots.push_back(entry.path().filename().string());
    std::sort(shots.begin(), shots.end());
    if (shots.empty()) return;
    page << "<h2 id=\"visualizer\">See it live: tinyamp-viz</h2>\n<p>Each step of these lessons can be watched in the "
            "visualizer: <code>build/visualizer/tinyamp-viz</code>, or <code>--scenario mlp-f16-scaler</code>. These "
            "screenshots were rendered headless by this walkthrough.</p>\n";
    for (const std::string& shot : shots) {
        const std::string path = "visualizer/" + shot;
        page << "<figure><a href=\"" << escape_xml(path) << "\"><img src=\"" << escape_xml(path) << "\"></a><figcaption>"
             << escape_xml(shot) << "</figcaption></figure>\n";
    }
}

}  // namespace

fs::path write_index(const fs::path& out)
{
    std::ostringstream page;
    write_page_head(page);
    // The machine: what the speed claims (lessons 1, 14, 15) were made for.
    const Machine machine = this_machine();
    page << "<h2 id=\"machine\">The machine</h2>\n<p>What this run's matrix products used (<code>tinyamp-tour --cpu</code> "
            "prints it; <code>TINYAMP_CPU</code> caps it). Lesson 1 says why bf16 is, or is not, faster here.</p>\n";
    write_machine(page, machine);
    for (const LessonResult& r : load_results(out)) {
        copy_readme(r.folder, out / r.folder);  // each lesson's text as the source tree has it now
        write_lesson(page, r, out, machine);
    }
    write_screenshots(page, out);
    page << "</body></html>\n";
    const fs::path index = out / "index.html";
    fs::create_directories(out);
    io::write_file_atomically(index.string(), page.str());
    return index;
}

}  // namespace tinyamp::lesson
